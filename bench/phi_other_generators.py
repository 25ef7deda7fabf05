"""The PHI boundary on PHI from other generators than ours (docs/phi.md, "Measured on other generators").

Our PHI sets come from one generator (presidio-research's templates, ../shared/eval/phi) and our own probes
(voiceassist_local.evaluation.phi_sets). This check is independent of both: values from Faker (18 locales), mimesis
(8 locales) and, when it is installed, presidio-evaluator's own Faker providers (its phone and address formats, not
its templates), put into clinician-style sentences written for this check (case notes, handovers, referral letters,
dictated transcripts with numbers in words, lists, chat messages). Each sentence has a matched control: the same
sentence with the detail removed. More controls are clinical text full of numbers, eponyms, drug brands and places
that name diseases ("Lyme", "Addison", "West Nile").

Two steps, so that the generators never enter the project's environment:

    python3 -m venv /tmp/phi-gen && /tmp/phi-gen/bin/pip install faker mimesis
    /tmp/phi-gen/bin/pip install --no-deps presidio-evaluator && /tmp/phi-gen/bin/pip install pandas pyyaml requests
    /tmp/phi-gen/bin/python bench/phi_other_generators.py generate --out /tmp/phi-gen/texts.jsonl [--seed 13]
    .venv/bin/python bench/phi_other_generators.py measure /tmp/phi-gen/texts.jsonl [--failures 40]

`generate` runs offline and exits 0 with a message when Faker or mimesis is missing (mimesis and
presidio-evaluator are optional: their part is left out and said so). `measure` runs the detector as served
(`build_detector(Settings())`: fail-closed Presidio, strict, the `contains_phi` the query pipeline routes on; with
a 30 s time limit so that a loaded machine's time-outs, which fail closed, do not count as detections) and
prints JSON: the leak rate (a text with PHI routed as no-PHI) by PHI type, by locale and by writing style, and the
over-routing of the controls. The generated texts are written outside the project and never committed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
import types
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

FAKER_LOCALES = ("en_GB", "en_IN", "en_AU", "en_CA", "en_NZ", "en_IE", "en_PH", "en_US", "es_ES", "es_MX", "fr_FR",
                 "de_DE", "pt_BR", "it_IT", "nl_NL", "pl_PL", "zh_CN", "ar_AA")
MIMESIS_LOCALES = ("en", "en-gb", "en-au", "en-ca", "es", "fr", "de", "pt-br")

# ---------------------------------------------------------------------------------------------------------------
# Templates: "[...]" is the detail the matched control leaves out; {v} is the generated value.
# Each template carries its writing style. Written for this check; no template of phi_sets or presidio-research.
TEMPLATES: dict[str, tuple[tuple[str, str], ...]] = {
    "name": (
        ("note", "Seen in clinic today[ {v}]: ankle swelling on amlodipine 10 mg, switch to lercanidipine?"),
        ("handover", "Handover - bay 3[, {v}], day 2 of IV co-amoxiclav, CRP falling, can we step down to oral?"),
        ("referral", "Dear colleague, thank you for seeing[ {v},] a man with a tremor that worsens at rest."),
        ("chat", "quick q[ re {v}] - eGFR 34, is 1 g metformin bd still ok?"),
        ("list", "Jobs: 1) bloods[ for {v}] 2) chase the CT 3) warfarin dose tonight"),
        ("dictated", "dictation[ for {v}] full stop new paragraph she reports three days of dysuria"),
        ("chat", "[{v} ]still vomiting after the ondansetron, what next for PONV?"),
        ("note", "Discussed[ {v}] with the renal team, they advise holding the ACE inhibitor."),
    ),
    "address": (
        ("note", "Lives alone[ at {v}], struggling with stairs; OT assessment before discharge?"),
        ("referral", "Please visit[ at {v}] - housebound, leg ulcer not healing after 6 weeks of compression."),
        ("handover", "For district nurse visit[ ({v})]: insulin glargine 18 units at 22:00."),
        ("chat", "community patient[, address {v},] needs a home INR check - how often on warfarin?"),
        ("dictated", "home visit requested[ to {v}] comma frail and confused since yesterday"),
        ("list", "Discharge checklist: TTOs done; transport booked[ to {v}]; GP letter sent"),
    ),
    "phone": (
        ("note", "Daughter is the contact[ on {v}] - she wants to know if donepezil can cause nightmares."),
        ("chat", "can you ring the ward back[ on {v}] about the vancomycin level?"),
        ("handover", "NOK aware[, tel {v}], DNACPR in place, for ward-based care."),
        ("referral", "The family can be reached[ at {v}] to arrange the memory clinic appointment."),
        ("dictated", "patient asked us to call her back[ on {v}] regarding the biopsy result"),
        ("list", "Contacts:[ wife {v};] community matron; palliative care team"),
    ),
    "email": (
        ("chat", "pls send the allergy clinic letter[ to {v}] - he wants a copy of the penicillin challenge plan"),
        ("note", "Results to be emailed[ to {v}] as requested; lipids on atorvastatin 40 mg improved."),
        ("referral", "Her carer[ ({v})] asks whether the rivastigmine patch can be cut."),
        ("handover", "Mum[ ({v})] prefers email updates; bronchiolitis, feeds 50 % of normal."),
    ),
    "date": (
        ("note", "Admitted[ on {v}] with a first seizure; CT head normal, driving advice given?"),
        ("handover", "Bed 7, post-op[ from {v}], drain output 300 mL, when to remove?"),
        ("referral", "Diagnosed with breast cancer[ on {v}], now on letrozole: bone protection?"),
        ("dictated", "date of birth[ {v}] full stop he presents with haematemesis"),
        ("chat", "seen in ED[ on {v}] with chest pain, trop negative x2, can he fly?"),
        ("list", "Timeline: chest pain[ {v}]; PCI to LAD; started ticagrelor"),
        ("note", "Last colonoscopy[ {v}], polyps removed; when is the next one due?"),
    ),
    "age": (
        ("note", "[{v}, ]fall at home, on apixaban, is a CT head needed?"),
        ("handover", "Side room 2[ - {v}] - hospital-acquired pneumonia, on piperacillin-tazobactam."),
        ("referral", "I would be grateful if you could see this gentleman[, {v},] with worsening breathlessness."),
        ("chat", "[{v} ]with AF, CHA2DS2-VASc high, bleeding risk too - anticoagulate?"),
        ("dictated", "this lady[ who is {v}] comma lives in a care home comma poor oral intake"),
    ),
    "national_id": (
        ("note", "[{v} - ]new AF today, rate 130, start bisoprolol?"),
        ("referral", "Re:[ {v},] suspected temporal arteritis, ESR 86 - steroids before the biopsy?"),
        ("chat", "can u check the lithium level[ for {v}] pls"),
        ("handover", "[{v}: ]sodium 121, fluid restricted, recheck at 6am"),
        ("dictated", "patient identifier[ {v}] full stop type two diabetes on gliclazide"),
        ("list", "To do: 1) ECG[ - {v}] 2) repeat potassium 3) review the insulin chart"),
    ),
    "record": (
        ("note", "[{v} ]diarrhoea after clindamycin, C. diff toxin pending - stop the PPI?"),
        ("chat", "can pharmacy review the drug chart[ for {v}]? on 14 meds"),
        ("handover", "Bed 12[ ({v})]: hypoglycaemic overnight, glucose 2.9, gliclazide held."),
        ("referral", "Reference[ {v}]: recurrent UTIs, three courses of nitrofurantoin this year."),
        ("dictated", "regarding[ {v}] comma the CT shows a small pulmonary embolus"),
        ("list", "Outstanding:[ {v} -] echo; TFTs; B12"),
    ),
    "url": (
        ("chat", "the family sent me[ {v} -] says turmeric cures his myeloma, any evidence?"),
        ("note", "Shared the care plan[ at {v}]; rescue pack of prednisolone and doxycycline."),
        ("referral", "Photos of the rash are[ at {v}]: target lesions on the palms."),
    ),
    "ip": (
        ("chat", "her home monitor[ at {v}] keeps sending BP alerts, 180/100 this morning"),
        ("note", "CGM uploads[ from {v}] show nocturnal lows on glargine."),
        ("handover", "Telemetry box[ {v}] dropped out overnight, runs of NSVT before that."),
    ),
    "plate": (
        ("note", "Patient arrived by car[ (reg {v})]; drove himself despite the seizure last week."),
        ("chat", "security say his car[ {v}] is still in the ambulance bay - he's now drowsy, GCS 13"),
        ("handover", "Still driving after the TIA[ - vehicle {v}] - DVLA advice given?"),
        ("referral", "He was the driver of[ {v},] the car involved; whiplash, no red flags."),
    ),
}

# Clinical text with no PHI: numbers, eponyms, drug brands, places that name diseases, guideline codes.
CLINICAL_CONTROLS: tuple[str, ...] = (
    "Lyme disease with erythema migrans: doxycycline 100 mg bd for 21 days or 10 days?",
    "Addison's disease on hydrocortisone 10/5/5 mg: sick day rules for vomiting?",
    "West Nile virus encephalitis: any antiviral option or supportive care only?",
    "Rocky Mountain spotted fever in a child under 8: is doxycycline still first line?",
    "Ross River virus arthritis: how long does the joint pain usually last?",
    "Japanese encephalitis vaccine before a 4-week trip: one dose or two?",
    "Marburg and Ebola: what PPE level for a febrile traveller from Uganda?",
    "Lassa fever: ribavirin dose for post-exposure prophylaxis?",
    "Coxsackie B myocarditis in a 19-year-old athlete: when can he return to sport?",
    "Bornholm disease versus pleurisy: how to tell them apart?",
    "Hashimoto's thyroiditis with TSH 8.4 and TPO antibodies positive: treat at 34 weeks?",
    "Guillain-Barre syndrome, FVC 1.4 L and falling: when to call ICU?",
    "Wolff-Parkinson-White on ECG with AF at 240 bpm: procainamide or cardioversion?",
    "Kawasaki disease on day 6 of fever: IVIG 2 g/kg and aspirin dose?",
    "Ménière's disease: betahistine 16 mg tds for how long before review?",
    "Stevens-Johnson syndrome after lamotrigine: can it ever be restarted?",
    "Meckel's diverticulum: rule of 2s, 2 feet from the ileocaecal valve?",
    "Virchow's triad in a long-haul flight of 14 hours: LMWH for prophylaxis?",
    "Tegretol 200 mg bd with Yaz: does carbamazepine reduce contraceptive efficacy?",
    "Eliquis 5 mg bd vs Xarelto 20 mg od in CrCl 28 mL/min?",
    "Ozempic 1 mg weekly, HbA1c 58 mmol/mol, add Jardiance 10 mg?",
    "Keppra 500 mg bd to 1,500 mg bd over how many weeks?",
    "Clexane 1.5 mg/kg od for PE in a 112 kg patient: cap the dose?",
    "Sinemet 25/100 four times daily with wearing off: add Stalevo or entacapone?",
    "Na 128, K 5.9, urea 14.2, creatinine 186, glucose 31: DKA or HHS?",
    "Hb 74 g/L, MCV 62, ferritin 6: IV iron 1,000 mg or oral first?",
    "BP 168/104 on 3 agents at max dose: add spironolactone 25 mg?",
    "GCS 14 (E4 V4 M6), pupils 3 mm equal and reactive, INR 2.8 on warfarin",
    "PEWS 5, RR 52, sats 91 % in air, HR 178: bronchiolitis needing HDU?",
    "Temp 38.9, HR 124, lactate 4.1, BP 88/50: sepsis six within 1 hour",
    "NICE NG136 target below 140/90 in adults under 80: what about over 80?",
    "SIGN 158 asthma: MART with Symbicort 200/6 from age 12?",
    "ICD-10 E11.9 vs E11.65 for type 2 diabetes with hyperglycaemia?",
    "NCT04280705 results: remdesivir time to recovery 10 vs 15 days",
    "CURB-65 of 3 at 2 am: IV co-amoxiclav 1.2 g tds plus clarithromycin 500 mg bd?",
    "Wells score 6, D-dimer 2,400 ng/mL: CTPA tonight?",
    "QRISK3 of 14.2 %: atorvastatin 20 mg as NICE CG181 advised?",
    "APGAR 4 at 1 minute and 8 at 5 minutes: cord gas pH 7.09, cooling?",
    "Glasgow-Blatchford score 0: outpatient management of upper GI bleed?",
    "Child-Pugh B, MELD 16: safe dose of paracetamol per 24 h?",
    "Down syndrome with atlantoaxial instability: screening before sport?",
    "Turner syndrome karyotype 45,X: growth hormone from what age?",
    "Paget's disease of bone, ALP 412 U/L: zoledronic acid 5 mg once?",
    "Bell's palsy within 72 hours: prednisolone 50 mg for 10 days?",
    "Barrett's oesophagus 3 cm without dysplasia: surveillance every 2-3 years?",
    "Charcot foot in diabetes: total contact cast for 12 weeks?",
    "Dupuytren's contracture 30 degrees at the MCP joint: refer?",
    "Osgood-Schlatter in a 13-year-old footballer: how long to rest?",
    "Tetralogy of Fallot repaired at 6 months: endocarditis prophylaxis for dental work?",
    "Brugada pattern type 1 after fever to 39.5: implantable defibrillator?",
    "Mallory-Weiss tear after 24 hours of vomiting: PPI dose?",
    "Legionella urinary antigen positive, Na 126: levofloxacin 500 mg bd?",
    "Coombs positive haemolysis on methyldopa at 32 weeks: switch to labetalol 200 mg tds?",
    "Tanner stage 2 at 8 years in a girl: precocious puberty work-up?",
    "Lisinopril 20 mg, ramipril 10 mg: equivalent doses?",
    "Humalog 6 units with meals and Lantus 24 units at 10 pm: adjust for steroids?",
    "Zoloft 50 mg to 100 mg after 4 weeks: how long to see an effect?",
    "Seroquel 25 mg nocte for delirium in Lewy body dementia: safe?",
    "Spiriva Respimat 2.5 mcg 2 puffs od plus Fostair 100/6 2 puffs bd?",
    "Augmentin 625 mg tds x 5 days for a 3 cm abscess after drainage?",
    "Dengue with platelets 42 x 10^9/L on day 5: warning signs?",
    "Chagas disease in a migrant from Bolivia: benznidazole dose?",
    "Q fever after lambing season: doxycycline for 14 days?",
    "Hendra virus exposure from a horse in Queensland: any prophylaxis?",
    "Norwalk-like outbreak on ward 7: close the bay for 48 hours?",
    "Rift Valley fever returning from Kenya with bleeding gums: which tests?",
    "Murray Valley encephalitis: is there a vaccine?",
    "Kyasanur Forest disease in Karnataka: vaccine schedule?",
    "Oroya fever and Carrion's disease: chloramphenicol still used?",
    "Tangier disease with orange tonsils: HDL 0.1 mmol/L",
    "Ebstein anomaly on fetal echo at 20 weeks: counselling?",
    "Mediterranean spotted fever after a trip to Sicily: eschar and rash",
    "Scrub typhus in Nepal: azithromycin in pregnancy?",
    "Omsk haemorrhagic fever: is it transmitted person to person?",
    "Valley fever (coccidioidomycosis) after Arizona: fluconazole 400 mg?",
    "Crimean-Congo haemorrhagic fever: isolation category?",
    "Pontiac fever versus Legionnaires' disease: treat both?",
    "Bangkok hospital discharge letter mentions melioidosis: meropenem for 14 days?",
    "Ward 4B asks: IV potassium 40 mmol in 1 L over 4 hours via peripheral line?",
    "Room 12 side room for C. diff: alcohol gel or soap and water?",
    "Bay 2 has 3 flu A cases: oseltamivir prophylaxis 75 mg od for 10 days?",
    "Called 999 at 14:32, ROSC at 14:51: targeted temperature 36 degrees for 24 hours?",
    "Extension 4412 is the bleep for the on-call pharmacist, not a patient number",
)

# Writing values in words, as a dictated transcript writes them.
_DIGIT_WORDS = ("oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_ONES = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
             "nine": "ninth", "twelve": "twelfth"}
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def number_words(n: int) -> str:
    if n < 20:
        return _ONES[n] or "zero"
    if n < 100:
        return _TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else "")
    return f"{_ONES[n // 100]} hundred" + (f" and {number_words(n % 100)}" if n % 100 else "")


def ordinal_words(n: int) -> str:
    words = number_words(n)
    head, _, last = words.rpartition("-")
    last = _ORDINALS.get(last, last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return f"{head}-{last}" if head else last


def year_words(year: int) -> str:
    if 2000 <= year < 2010:
        return f"two thousand and {number_words(year - 2000)}"
    hi, lo = divmod(year, 100)
    return f"{number_words(hi)} {number_words(lo) if lo >= 10 else 'oh ' + number_words(lo) if lo else 'hundred'}"


def digits_spoken(value: str, rng: random.Random) -> str:
    """"07700 900123" as said aloud: digit words, "double" for a pair sometimes, "oh" or "zero" for 0, letters
    as letters."""
    digits = [c for c in value if c.isalnum()]
    zero = rng.choice(("oh", "zero"))
    words: list[str] = []
    i = 0
    while i < len(digits):
        if not digits[i].isdigit():  # a letter of the id is said as the letter
            words.append(digits[i].upper())
            i += 1
            continue
        word = zero if digits[i] == "0" else _DIGIT_WORDS[int(digits[i])]
        if i + 1 < len(digits) and digits[i + 1] == digits[i] and rng.random() < 0.5:
            words.append(f"double {word}")
            i += 2
            continue
        words.append(word)
        i += 1
    return " ".join(words)


def date_forms(day: date, rng: random.Random) -> tuple[str, str]:
    """One way of writing a day (its form's name, the text): numeric in several orders, written out, in words."""
    month = _MONTHS[day.month - 1]
    forms = {
        "dmy_slash": f"{day.day:02d}/{day.month:02d}/{day.year}",
        "mdy_slash": f"{day.month}/{day.day}/{day.year}",
        "iso": day.isoformat(),
        "dmy_dot": f"{day.day}.{day.month}.{day.year}",
        "dmy_dash_short": f"{day.day:02d}-{day.month:02d}-{day.year % 100:02d}",
        "d_mon_y": f"{day.day}-{month[:3]}-{day.year}",
        "d_month_y": f"{day.day} {month} {day.year}",
        "month_d_y": f"{month} {day.day}, {day.year}",
        "ordinal_of": f"the {day.day}{_suffix(day.day)} of {month} {day.year}",
        "words": f"the {ordinal_words(day.day)} of {month} {year_words(day.year)}",
        "words_us": f"{month} {ordinal_words(day.day)} {year_words(day.year)}",
        "compact": f"{day.day:02d}{month[:3].upper()}{day.year}",
    }
    name = rng.choice(sorted(forms))
    return name, forms[name]


def _suffix(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


# ---------------------------------------------------------------------------------------------------------------
# National identifiers, generated with their check digits where they have one (synthetic, never real).
def _nhs(rng: random.Random) -> str:
    while True:
        body = [rng.randint(0, 9) for _ in range(9)]
        check = 11 - sum(d * (10 - i) for i, d in enumerate(body)) % 11
        if check == 11:
            check = 0
        if check != 10:
            s = "".join(map(str, body)) + str(check)
            return rng.choice((f"{s[:3]} {s[3:6]} {s[6:]}", s, f"{s[:3]}-{s[3:6]}-{s[6:]}"))


def _medicare_au(rng: random.Random) -> str:
    body = [rng.randint(2, 6)] + [rng.randint(0, 9) for _ in range(7)]
    check = sum(d * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9), strict=True)) % 10
    s = "".join(map(str, body)) + str(check) + str(rng.randint(1, 9))
    return rng.choice((f"{s[:4]} {s[4:9]} {s[9]}", s[:10], f"{s[:4]} {s[4:9]} {s[9]}/{rng.randint(1, 5)}"))


def _ihi(rng: random.Random) -> str:
    s = "800360" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    return rng.choice((" ".join(s[i:i + 4] for i in range(0, 16, 4)), s))


def _nric(rng: random.Random) -> str:
    prefix = rng.choice("STFG")
    digits = [rng.randint(0, 9) for _ in range(7)]
    total = sum(d * w for d, w in zip(digits, (2, 7, 6, 5, 4, 3, 2), strict=True)) + (4 if prefix in "TG" else 0)
    letters = "JZIHGFEDCBA" if prefix in "ST" else "XWUTRQPNMLK"
    return prefix + "".join(map(str, digits)) + letters[total % 11]


def _chi(rng: random.Random) -> str:
    day = date(rng.randint(1930, 2010), rng.randint(1, 12), rng.randint(1, 28))
    return f"{day.day:02d}{day.month:02d}{day.year % 100:02d}{rng.randint(1000, 9999)}"


def _nhi(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    return "".join(rng.choice(letters) for _ in range(3)) + f"{rng.randint(0, 9999):04d}"


def _ppsn(rng: random.Random) -> str:
    return f"{rng.randint(0, 9999999):07d}" + rng.choice("ABCDEFGHJKLMNPQRSTVWX") + rng.choice(("", "A", "W"))


def _ohip(rng: random.Random) -> str:
    s = f"{rng.randint(1000000000, 9999999999)}"
    return f"{s[:4]}-{s[4:7]}-{s[7:]}-" + "".join(rng.choice("ABCDEFGHJKLMNPRSTVWXYZ") for _ in range(2))


def _emirates(rng: random.Random) -> str:
    return f"784-{rng.randint(1950, 2010)}-{rng.randint(0, 9999999):07d}-{rng.randint(0, 9)}"


def _kvnr(rng: random.Random) -> str:
    return rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + f"{rng.randint(0, 999999999):09d}"


def _bsn(rng: random.Random) -> str:
    while True:
        body = [rng.randint(0, 9) for _ in range(8)]
        total = sum(d * w for d, w in zip(body, range(9, 1, -1), strict=True))
        last = total % 11
        if last < 10 and body[0] != 0:
            return "".join(map(str, body)) + str(last)


def _pesel(rng: random.Random) -> str:
    body = [rng.randint(0, 9) for _ in range(10)]
    body[2] = rng.randint(0, 1)
    check = (10 - sum(d * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=True)) % 10) % 10
    return "".join(map(str, body)) + str(check)


def _cns(rng: random.Random) -> str:
    s = "7" + "".join(str(rng.randint(0, 9)) for _ in range(14))
    return rng.choice((f"{s[:3]} {s[3:7]} {s[7:11]} {s[11:]}", s))


# (the id's name, its label as a clinician writes it, generator); Faker's own where it has one.
def national_ids(fakers: dict[str, Any]) -> dict[str, tuple[tuple[str, str, Callable[[random.Random], str]], ...]]:
    def faker_call(locale: str, method: str) -> Callable[[random.Random], str]:
        return lambda _rng: str(getattr(fakers[locale], method)())

    return {
        "en_GB": (("NHS number", "NHS no.", _nhs), ("NI number", "NI no", faker_call("en_GB", "ssn")),
                  ("CHI number", "CHI", _chi)),
        "en_IN": (("Aadhaar", "Aadhaar", lambda rng: _spaced(faker_call("en_IN", "aadhaar_id")(rng), 4)),),
        "en_AU": (("Medicare number", "Medicare no", _medicare_au), ("IHI", "IHI", _ihi)),
        "en_CA": (("SIN", "SIN", faker_call("en_CA", "ssn")), ("OHIP health card", "health card", _ohip)),
        "en_NZ": (("NHI", "NHI", _nhi),),
        "en_IE": (("PPSN", "PPS no.", _ppsn),),
        "en_PH": (("PhilHealth / SSS / UMID", "SSS no.", faker_call("en_PH", "sss")),
                  ("UMID", "UMID", faker_call("en_PH", "umid"))),
        "en_US": (("SSN", "SSN", faker_call("en_US", "ssn")),),
        "en_SG": (("NRIC", "NRIC", _nric),),
        "es_ES": (("NIF", "DNI", faker_call("es_ES", "nif")), ("NIE", "NIE", faker_call("es_ES", "nie"))),
        "es_MX": (("CURP", "CURP", faker_call("es_MX", "curp")),),
        "fr_FR": (("NIR", "n° de sécu", faker_call("fr_FR", "ssn")),),
        "de_DE": (("KVNR", "KVNR", _kvnr),),
        "pt_BR": (("CPF", "CPF", faker_call("pt_BR", "cpf")), ("CNS", "cartão SUS", _cns)),
        "it_IT": (("codice fiscale", "CF", faker_call("it_IT", "ssn")),),
        "nl_NL": (("BSN", "BSN", _bsn),),
        "pl_PL": (("PESEL", "PESEL", _pesel),),
        "zh_CN": (("resident ID", "ID card", faker_call("zh_CN", "ssn")),),
        "ar_AA": (("Emirates ID", "Emirates ID", _emirates),),
    }


def _spaced(value: str, size: int) -> str:
    return " ".join(value[i:i + size] for i in range(0, len(value), size))


RECORD_SHAPES = ("MRN {d8}", "MRN: {d7}", "hosp no {L}{d6}", "unit no. {d6}", "URN {d7}", "RM{d7}", "K{d7}",
                 "acc no {d10}", "account {d4}-{d6}", "billing acct {L}{L}{d8}", "encounter {d9}",
                 "visit no. {d4}{L}{d4}", "medical record {d3}-{d3}-{d3}", "chart #{d6}", "A{d2}-{d5}",
                 "{d8}", "{L}{L}{d6}")


def record_value(rng: random.Random) -> tuple[str, str]:
    shape = rng.choice(RECORD_SHAPES)

    def sub(m: re.Match[str]) -> str:
        token = m.group(1)
        if token == "L":
            return rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ")
        return "".join(str(rng.randint(0, 9)) for _ in range(int(token[1:])))

    return shape.split(" ")[0] if " " in shape else "bare", re.sub(r"\{(L|d\d+)\}", sub, shape)


# ---------------------------------------------------------------------------------------------------------------
# Names as clinicians write them.
PARTICLES = {"es_ES": ("de la", "del", "de"), "es_MX": ("de la", "de"), "pt_BR": ("dos", "da", "de"),
             "nl_NL": ("van der", "van", "de"), "de_DE": ("von", "von der"), "fr_FR": ("de", "du", "le"),
             "it_IT": ("di", "de", "della"), "en_IE": ("O'", "Mc", "Mac"), "en_PH": ("dela", "de los")}
TITLES = ("Mr", "Mrs", "Ms", "Miss", "Dr", "Mr.", "Mrs.", "Prof")


def name_value(fake: Any, locale: str, rng: random.Random) -> tuple[str, str]:
    first, last = fake.first_name(), fake.last_name()
    shapes = ["full", "title_last", "title_full", "initial_last", "initials_last", "hyphenated", "lower",
              "last_comma_first", "caps_last"]
    if locale in PARTICLES:
        shapes.append("particle")
    shape = rng.choice(shapes)
    if shape == "full":
        return shape, f"{first} {last}"
    if shape == "title_last":
        return shape, f"{rng.choice(TITLES)} {last}"
    if shape == "title_full":
        return shape, f"{rng.choice(TITLES)} {first} {last}"
    if shape == "initial_last":
        return shape, f"{first[0]}. {last}"
    if shape == "initials_last":
        return shape, f"{first[0]}{fake.first_name()[0]} {last}"
    if shape == "hyphenated":
        return shape, f"{first} {last}-{fake.last_name()}"
    if shape == "lower":
        return shape, f"{first} {last}".lower()
    if shape == "last_comma_first":
        return shape, f"{last.upper()}, {first}"
    if shape == "caps_last":
        return shape, f"{first} {last.upper()}"
    particle = rng.choice(PARTICLES[locale])
    glue = "" if particle.endswith("'") or particle in ("Mc", "Mac") else " "
    return shape, f"{first} {particle}{glue}{last}"


def address_value(fake: Any, rng: random.Random) -> tuple[str, str]:
    shape = rng.choice(("street", "full", "full_lower"))
    if shape == "street":
        return shape, re.sub(r"\s*\n\s*", ", ", fake.street_address())
    value = re.sub(r"\s*\n\s*", ", ", fake.address())
    return shape, value.lower() if shape == "full_lower" else value


def age_value(rng: random.Random) -> tuple[str, str]:
    age = rng.randint(90, 104)
    shapes = {"year_old": f"{age}-year-old", "yo": f"{age}yo", "y_o": f"{age} y/o", "sex": f"{age}{rng.choice('MF')}",
              "aged": f"aged {age}", "words": f"{number_words(age)} years old", "yrs": f"{age} yrs",
              "age_colon": f"age: {age}"}
    name = rng.choice(sorted(shapes))
    return name, shapes[name]


def phone_value(fake: Any) -> str:
    """The locale's phone number (en_PH's Faker has mobile and landline numbers only)."""
    for method in ("phone_number", "mobile_number", "landline_number"):
        if hasattr(fake, method):
            return str(getattr(fake, method)())
    raise AttributeError("no phone number provider")


def plate_value(fake: Any) -> tuple[str, str]:
    return "plate", str(fake.license_plate())


# ---------------------------------------------------------------------------------------------------------------
def fill(template: str, value: str) -> tuple[str, str]:
    """The sentence with its detail, and its control without it."""
    with_value = re.sub(r"\[([^\]]*)\]", lambda m: m.group(1), template).replace("{v}", value)
    control = re.sub(r"\[[^\]]*\]", "", template)
    return with_value, re.sub(r"  +", " ", control).strip()


def generate(seed: int) -> Iterator[dict[str, Any]]:
    try:
        from faker import Faker
    except ImportError:
        print("faker is not installed: nothing generated (see the module's docstring)", file=sys.stderr)
        return
    rng = random.Random(seed)
    fakers: dict[str, Any] = {}
    for locale in FAKER_LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        fakers[locale] = fake
    ids = national_ids(fakers)
    controls: set[str] = set()

    def emit(kind: str, locale: str, shape: str, value: str, generator: str) -> Iterator[dict[str, Any]]:
        style, template = rng.choice(TEMPLATES[kind])
        text, control = fill(template, value)
        yield {"text": text, "phi": True, "type": kind, "locale": locale, "shape": shape, "style": style,
               "generator": generator}
        if control not in controls:
            controls.add(control)
            yield {"text": control, "phi": False, "type": "matched_control", "style": style, "generator": "-"}

    per_cell = 4
    for locale, fake in fakers.items():
        for _ in range(per_cell):
            yield from emit("name", locale, *name_value(fake, locale, rng), "faker")
            yield from emit("address", locale, *address_value(fake, rng), "faker")
            yield from emit("phone", locale, "as_generated", phone_value(fake), "faker")
            yield from emit("email", locale, "email", str(fake.email()), "faker")
            day = fake.date_of_birth(minimum_age=1, maximum_age=95)
            yield from emit("date", locale, *date_forms(day, rng), "faker")
            yield from emit("record", locale, *record_value(rng), "synthetic")
            yield from emit("url", locale, "url", str(fake.url()) + rng.choice(("", "patient/8812", "?id=30412")),
                            "faker")
            yield from emit("ip", locale, "ipv4" if rng.random() < 0.7 else "ipv6",
                            str(fake.ipv4_public() if rng.random() < 0.7 else fake.ipv6()), "faker")
            yield from emit("plate", locale, *plate_value(fake), "faker")
        yield from emit("phone", locale, "spoken", digits_spoken(phone_value(fake), rng), "faker")
        for _ in range(2):
            yield from emit("age", locale, *age_value(rng), "synthetic")
    for locale, kinds in ids.items():
        for label, cue, make in kinds:
            for cued in (True, True, False):
                value = make(rng)
                text_value = f"{cue} {value}" if cued else value
                yield from emit("national_id", locale, f"{label} {'cued' if cued else 'bare'}", text_value,
                                "faker" if locale in fakers and "faker" in getattr(make, "__qualname__", "") else
                                "synthetic")
            yield from emit("national_id", locale, f"{label} spoken", f"{cue} {digits_spoken(make(rng), rng)}",
                            "synthetic")
    yield from _mimesis(rng, emit)
    yield from _presidio_evaluator(rng, emit)
    for text in CLINICAL_CONTROLS:
        yield {"text": text, "phi": False, "type": "clinical_control", "style": "question", "generator": "-"}


def _mimesis(rng: random.Random, emit: Callable[..., Iterator[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    try:
        from mimesis import Address, Datetime, Locale, Person
    except ImportError:
        print("mimesis is not installed: its part is left out", file=sys.stderr)
        return
    for code in MIMESIS_LOCALES:
        locale = Locale(code)
        person = Person(locale, seed=rng.randint(0, 2**31))
        address, when = Address(locale, seed=rng.randint(0, 2**31)), Datetime(locale, seed=rng.randint(0, 2**31))
        for _ in range(3):
            yield from emit("name", f"mimesis:{code}", "full", person.full_name(), "mimesis")
            yield from emit("phone", f"mimesis:{code}", "as_generated", person.telephone(), "mimesis")
            yield from emit("email", f"mimesis:{code}", "email", person.email(), "mimesis")
            yield from emit("address", f"mimesis:{code}", "street", f"{address.address()}, {address.city()}",
                            "mimesis")
            yield from emit("date", f"mimesis:{code}", *date_forms(when.date(start=1925, end=2024), rng), "mimesis")


def _presidio_evaluator(rng: random.Random, emit: Callable[..., Iterator[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """presidio-evaluator's Faker providers (phone and address formats, US driver's licences), loaded from the
    installed package's file: its package imports spaCy, which the scratch environment does not need."""
    spec = importlib.util.find_spec("presidio_evaluator")
    if spec is None or not spec.submodule_search_locations:
        print("presidio-evaluator is not installed: its part is left out", file=sys.stderr)
        return
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        from faker import Faker

        package = types.ModuleType("presidio_evaluator.data_generator")
        package.raw_data_dir = root / "data_generator" / "raw_data"  # type: ignore[attr-defined]
        sys.modules.setdefault("presidio_evaluator", types.ModuleType("presidio_evaluator"))
        sys.modules["presidio_evaluator.data_generator"] = package
        file = root / "data_generator" / "faker_extensions" / "providers.py"
        module_spec = importlib.util.spec_from_file_location("pe_providers", file)
        assert module_spec is not None and module_spec.loader is not None
        providers = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(providers)
    except Exception as exc:  # noqa: BLE001 - an optional generator: say why and go on without it
        print(f"presidio-evaluator's providers did not load ({type(exc).__name__}): its part is left out",
              file=sys.stderr)
        return
    fake = Faker("en_US")
    fake.seed_instance(rng.randint(0, 2**31))
    fake.add_provider(providers.PhoneNumberProviderNew)
    fake.add_provider(providers.AddressProviderNew)
    fake.add_provider(providers.UsDriverLicenseProvider)
    for _ in range(25):
        yield from emit("phone", "presidio-evaluator", "as_generated", fake.phone_number(), "presidio-evaluator")
        yield from emit("address", "presidio-evaluator", "formats", re.sub(r"\s*\n\s*", ", ", fake.address()),
                        "presidio-evaluator")
    for _ in range(8):
        yield from emit("national_id", "presidio-evaluator", "US driver licence cued",
                        f"driver licence {fake.us_driver_license()}", "presidio-evaluator")


# ---------------------------------------------------------------------------------------------------------------
def measure(path: Path, failures: int) -> dict[str, Any]:
    from voiceassist.composition.phi_detectors import build_detector
    from voiceassist.settings import Settings

    detector = build_detector(Settings(), timeout_s=30.0)  # as served, without load-induced time-outs
    load = getattr(detector, "load", None)
    if load:
        load()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    missed: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    errors = 0
    for row in rows:
        result = detector.detect(row["text"])
        errors += bool(result.error)
        hit = result.contains_phi
        if row["phi"]:
            for key in ("type", "locale", "style", "generator"):
                by[key][row[key]]["n"] += 1
                by[key][row[key]]["leaked"] += not hit
            by["type_shape"][f"{row['type']}:{row['shape']}"]["n"] += 1
            by["type_shape"][f"{row['type']}:{row['shape']}"]["leaked"] += not hit
            if not hit:
                missed.append(row)
        else:
            by["controls"][row["type"]]["n"] += 1
            by["controls"][row["type"]]["flagged"] += hit
            if hit:
                flagged.append({**row, "found": result.entity_types})

    def table(key: str, what: str) -> dict[str, str]:
        return {name: f"{c[what]}/{c['n']} ({100 * c[what] / c['n']:.1f} %)" for name, c in sorted(by[key].items())}

    positives = [r for r in rows if r["phi"]]
    report: dict[str, Any] = {
        "texts": len(rows), "positives": len(positives), "detection_errors": errors,
        "leak_rate": f"{len(missed)}/{len(positives)} ({100 * len(missed) / max(1, len(positives)):.2f} %)",
        "leak_by_type": table("type", "leaked"), "leak_by_locale": table("locale", "leaked"),
        "leak_by_style": table("style", "leaked"), "leak_by_generator": table("generator", "leaked"),
        "leak_by_type_shape": {k: v for k, v in table("type_shape", "leaked").items() if not v.startswith("0/")},
        "over_routing": table("controls", "flagged"),
    }
    if failures:
        report["missed"] = [f"[{r['type']}:{r['shape']}:{r['locale']}] {r['text']}" for r in missed[:failures]]
        report["flagged"] = [f"[{r['type']}] {r['text']} -> {r['found']}" for r in flagged[:failures]]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate")
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--seed", type=int, default=13)
    mea = sub.add_parser("measure")
    mea.add_argument("texts", type=Path)
    mea.add_argument("--failures", type=int, default=0)
    args = parser.parse_args()
    if args.command == "generate":
        rows = list(generate(args.seed))
        if not rows:
            return
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(json.dumps({"out": str(args.out), "texts": len(rows), "positives": sum(r["phi"] for r in rows)}))
    else:
        if not args.texts.exists():
            print(f"{args.texts} does not exist: run the generate step first", file=sys.stderr)
            return
        print(json.dumps(measure(args.texts, args.failures), indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
