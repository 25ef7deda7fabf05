"""Templates of the generated PHI evaluation sets (phi_sets.py): written for this project, not taken from the
presidio-research templates the development set was built from.

A `{field}` is filled by a value generator and becomes a gold span of the field's type; `{field:plain}` is filled
the same way but carries no gold span (cities and countries are not PHI here). Negatives' fields are fillers
that look like PHI and are not: ages up to 89, years, eponyms, drug and gene names, doses, lab values, scores,
trial and literature identifiers.
"""

from __future__ import annotations

# Clinical notes and messages, filled from Faker (several locales).
FAKER_NOTES = (
    "Pt {name}, DOB {dob}, MRN {mrn}, presents with chest pain radiating to the left arm.",
    "{name} ({age90}) was admitted from {street}, {city:plain} {zip} with a fall.",
    "Discharge summary for {name}: address {street}, {zip}. Follow-up in cardiology clinic.",
    "Please call {name} on {phone} about the potassium result of 6.1.",
    "Referral: {name}, born {dob}, insurance member ID {plan}, needs an echocardiogram.",
    "Contact the daughter at {email} regarding the DNR discussion for her father.",
    "Patient {mrn} with sepsis: lactate 4.2, which fluids and how much?",
    "{name} paid the co-pay with card {card}; can we refund the unused amount?",
    "SSN on file {ssn} does not match the registration for {name}.",
    "Home visit at {street} for {name}, who lives alone and is on warfarin.",
    "Wound photos uploaded to {url} for {name}, please review before debridement.",
    "{name}, {age90}, resident at {street}, {city:plain}, has had three falls this month.",
    "Pacemaker serial {device} for {name} is on the recall list?",
    "Billing: account {account}, patient {name}, date of service {dob}.",
    "Mother {name} can be reached at {phone} or {email} after 6 pm.",
    "{name} was seen today; post code {zip}, GP practice nearby, BP 150/95.",
    "Transfer {name} (hospital number {mrn}) to ICU for NIV.",
    "Labs for {name} sent to {email}: HbA1c 8.4 %, eGFR 48.",
    "Ambulance picked up {name} at {street}; GCS 13 on arrival.",
    "New registration: {name}, {street}, {zip}, tel {phone}.",
)

# The same kinds of identifiers in a different voice, filled from mimesis.
MIMESIS_NOTES = (
    "{name} is a {age90} with CKD stage 4 on dialysis: what is the target phosphate?",
    "Our patient {name} (record {mrn}) developed hives after ceftriaxone.",
    "Family meeting with {name}'s son, phone {phone}, about hospice.",
    "Send the MRI report to {email} for {name}.",
    "Address on the chart: {street}, {city:plain}, {zip}.",
    "{name}, date of birth {dob}, needs a tetanus booster?",
    "Visiting nurse for {name} at {street} twice weekly for wound care.",
    "Card ending {card} was declined for {name}'s prescription.",
    "Health plan number {plan} rejected the prior authorization for {name}.",
    "{name} called from {phone} with palpitations since morning.",
    "Mr {surname} in bed 4 is confused; sodium 121.",
    "Pre-op check: {name}, DOB {dob}, NPO since midnight.",
    "{name} lives at {street}, {zip}; can district nurses do INR checks?",
    "Device {device} interrogation for {name} shows AF burden 12 %.",
    "Forward the discharge letter for {name} to {url}.",
    "{name} at {street} has no heating; hypothermia risk at {age90}.",
)

# How clinicians type to an assistant: terse, lower case, names alone, record numbers without a label.
CLINICIAN_QUERIES = (
    "patient {bare_id} with anaphylaxis: adrenaline dose?",
    "{surname} has pneumonia, CURB-65 is 2, treat where?",
    "{name_lower} is 64 and has hypertension, target BP?",
    "pt {bare_id} on vanco, trough 22, hold next dose?",
    "{surname} post op day 2, Hb 7.8, transfuse?",
    "can {name} have ibuprofen with an eGFR of 35?",
    "{name_caps} MRN {mrn} - INR 5.2 no bleeding, what now",
    "seen {name_lower} today with cellulitis, amoxicillin allergy, which antibiotic?",
    "{surname}'s potassium is 6.3, ECG shows peaked T waves",
    "what dose of enoxaparin for {name}, 112 kg, CrCl 40?",
    "{name} born {dob} needs catch-up vaccines?",
    "{surname} in bay 3 is agitated, haloperidol or lorazepam?",
    "{bare_id} - sodium 118 and seizing, hypertonic saline dose?",
    "{name_lower}, {age90}, delirious after hip surgery, what to check?",
    "ring {name} on {phone} with the CT result?",
    "{name_hyphen} has a DVT and is pregnant, LMWH dose?",
    "does {surname} need a statin with LDL 4.1 and diabetes",
    "patient number {bare_id}: troponin rising, start heparin?",
    "{name} at {street} cannot get to clinic, phone follow-up ok?",
    "email results to {email}? {surname} asked",
    "{name_caps} needs a repeat script for levothyroxine 100 mcg",
    "{surname}, 58, chest pain, HEART score 5, admit?",
    "chart {mrn} shows penicillin allergy, can I give cefazolin?",
    "{name_lower} keeps missing dialysis, what are the risks?",
    "{name} zip {zip} is outside our catchment, which hospital?",
)

# Clinical questions without PHI that carry what PHI recognizers trip on.
HARD_NEGATIVES = (
    "A {age}-year-old man with {eponym} disease: first-line treatment?",
    "{drug} {dose} mg twice daily with an eGFR of {egfr}: adjust the dose?",
    "What did the {year} {guideline} guideline change about blood pressure targets?",
    "Is {gene} testing recommended for a {age}-year-old woman with breast cancer?",
    "Creatinine {creat} mg/dL and potassium {k} mmol/L on {drug}: stop it?",
    "CHA2DS2-VASc of {score} in a {age}-year-old: anticoagulate?",
    "Refer to {department} or manage in primary care: {eponym} syndrome with fever?",
    "Results of trial {trial} on {drug} in heart failure?",
    "Summarise PMID {pmid} on {drug} dosing in the elderly.",
    "Platelets {platelets}/uL after {drug}: heparin-induced thrombocytopenia?",
    "{eponym} sign positive in a {age} year old with abdominal pain, next step?",
    "Since {year} which vaccines are recommended at age {age}?",
    "ICD-10 code {icd} for type 2 diabetes with nephropathy?",
    "{drug} {dose} mg: maximum daily dose in adults over {age}?",
    "GCS {gcs}, pupils equal, {eponym} triad present: what is the diagnosis?",
    "The {department} department asks about {drug} before surgery: hold for how many days?",
    "{gene} mutation and {drug}: does it change the dose?",
    "Wells score {score} and D-dimer {ddimer} ng/mL: CT pulmonary angiogram?",
    "In {year}, how was {eponym} disease staged?",
    "Ferritin {ferritin} ug/L and transferrin saturation {tsat} %: iron overload?",
    "How long after {drug} {dose} mg can a {age}-year-old drive?",
    "Is {drug} safe in a patient aged {age} with {eponym} disease?",
    "Section {section} of the {guideline} guideline on sepsis bundles?",
    "BP {bp} mmHg in a {age}-year-old with CKD stage {ckd}: which drug?",
    "Paediatric dose of {drug} for a {weight} kg child aged {child_age}?",
)
