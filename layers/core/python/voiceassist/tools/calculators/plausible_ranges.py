"""The physiologic range of every numeric calculator input, in the unit its field name gives, with its source.

A value outside its range is not a patient (or not one a bedside score applies to): a unit slip (creatinine in
µmol/L sent as mg/dL), a typo (age 700) or a test. The ranges are the extremes reported in living patients,
not reference intervals: an abnormal but real value (sodium 105, potassium 9, temperature 14 °C after
immersion) must still compute. Each range names the report or reference it rests on; a range given as a
scale's own limits (GCS 3-15, Killip I-IV) is the scale's definition and is enforced by its params model.

Sources are listed once below (SOURCES) and referred to by key; docs/decisions/0027-clinical-safety-rails.md
explains the choices.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plausible:
    low: float
    high: float
    unit: str
    source: str  # a key of SOURCES

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def describe(self) -> str:
        return f"{self.low:g}-{self.high:g} {self.unit}".rstrip()


SOURCES: dict[str, str] = {
    "age": "Robine JM, Allard M, Science 1998;279:1834 (the longest verified human life, 122 years); "
           "ranges cap at 120 years",
    "anthropometry": "Guinness World Records (heaviest recorded human 635 kg; tallest 272 cm; shortest adult "
                     "54.6 cm); Ehrenkranz RA et al., Pediatrics 1999;104:280 (extremely low birth weight "
                     "infants from 0.3 kg, about 25 cm)",
    "temperature": "Gilbert M et al., Lancet 2000;355:375 (survival at 13.7 °C); Slovis CM et al., JAMA "
                   "1980;244:1393 (46.5 °C heat stroke survivor)",
    "electrolytes": "Adrogué HJ, Madias NE, N Engl J Med 2000;342:1493 and 1581 (hyper- and hyponatraemia: "
                    "sodium from about 95 to 200 mmol/L in survivors); Kovesdy CP, Nat Rev Nephrol 2014;10:653 "
                    "(potassium 1.0-12 mmol/L reported); Kraut JA, Madias NE, Nat Rev Nephrol 2010;6:274 "
                    "(bicarbonate and pH in severe acidosis)",
    "blood_gas": "Kraut JA, Madias NE, Nat Rev Nephrol 2010;6:274 (survival at pH 6.3 and above); West JB, "
                 "Respiratory Physiology, 10th ed. 2016 (PaO2 at most about 670 mm Hg on 100 % oxygen at sea "
                 "level; FiO2 21-100 %)",
    "vital_signs": "ACLS: AHA Guidelines for CPR and ECC, Circulation 2020;142(suppl 2) (rates of 20-300/min "
                   "in bradycardia and tachyarrhythmia; blood pressure in shock and crisis); Fleming S et al., "
                   "Lancet 2011;377:1011 (heart and respiratory rates in children up to 190 and 70/min)",
    "renal": "KDIGO 2012 CKD guideline, Kidney Int Suppl 2013;3:1 (creatinine 0.1 mg/dL in infants, and above "
             "20 mg/dL in untreated kidney failure); Espinel CH, JAMA 1976;236:579 (urine sodium and creatinine)",
    "chemistry": "Burtis CA, Bruns DE, Tietz Fundamentals of Clinical Chemistry and Molecular Diagnostics, 7th "
                 "ed. 2015 (analytic measuring ranges and reported extremes of glucose, urea, calcium, "
                 "albumin, bilirubin, lipids, insulin, enzymes)",
    "haematology": "Bain BJ, Dacie and Lewis Practical Haematology, 12th ed. 2017 (haemoglobin, haematocrit, "
                   "white cell and platelet counts, INR, from aplasia to hyperleukocytosis and thrombocytosis)",
    "ecg": "Rautaharju PM et al., AHA/ACCF/HRS recommendations for ECG interpretation, Part IV, Circulation "
           "2009;119:e241 (QT intervals of 200-800 ms in practice)",
    "dosing": "British National Formulary, 2024: the largest single doses in use (methylprednisolone 1 g pulses; "
              "opioid doses in palliative care); a dose beyond these is a unit slip",
    "alcohol": "WHO, AUDIT manual 2001 (standard drinks); above 300 drinks a week is not a survivable intake",
    "obstetrics": "ACOG Committee Opinion 700, Obstet Gynecol 2017;129:e150 (cycle lengths, dating)",
    "bmi": "WHO Technical Report Series 894, 2000; Guinness World Records (BMI about 10 in starvation to about "
           "190 at the heaviest recorded weight)",
}

_AGE = Plausible(0, 120, "years", "age")
_WEIGHT = Plausible(0.3, 650, "kg", "anthropometry")
_HEIGHT = Plausible(25, 275, "cm", "anthropometry")
_CREATININE = Plausible(0.1, 40, "mg/dL", "renal")
_SODIUM = Plausible(90, 200, "mmol/L", "electrolytes")
_HEART_RATE = Plausible(20, 300, "beats/min", "vital_signs")
_RESPIRATORY_RATE = Plausible(2, 80, "breaths/min", "vital_signs")
_SYSTOLIC = Plausible(30, 300, "mm Hg", "vital_signs")
_TEMPERATURE = Plausible(13.7, 46.5, "°C", "temperature")
_PAO2 = Plausible(10, 700, "mm Hg", "blood_gas")
_BILIRUBIN = Plausible(0.05, 80, "mg/dL", "chemistry")
_ALBUMIN = Plausible(0.5, 7, "g/dL", "chemistry")
_GLUCOSE = Plausible(10, 3000, "mg/dL", "chemistry")
_BUN = Plausible(1, 300, "mg/dL", "chemistry")
_CHOLESTEROL = Plausible(20, 2000, "mg/dL", "chemistry")
_MAP = Plausible(20, 250, "mm Hg", "vital_signs")
_FIO2 = Plausible(21, 100, "%", "blood_gas")
_HEMATOCRIT = Plausible(5, 80, "%", "haematology")
_INR = Plausible(0.5, 20, "", "haematology")
_ENZYME = Plausible(1, 20000, "U/L", "chemistry")
_QT = Plausible(200, 800, "msec", "ecg")

# field name (as the params models spell it) -> its plausible range in the field's unit
PHYSIOLOGIC: dict[str, Plausible] = {
    "age": _AGE,
    "weight_kg": _WEIGHT,
    "height_cm": _HEIGHT,
    "bmi": Plausible(8, 200, "kg/m²", "bmi"),
    "target_bmi": Plausible(12, 60, "kg/m²", "bmi"),
    "creatinine_mg_dl": _CREATININE,
    "urine_creatinine_mg_dl": Plausible(1, 1000, "mg/dL", "renal"),
    "urine_sodium": Plausible(0, 300, "mmol/L", "renal"),
    "urine_output_ml_day": Plausible(0, 20000, "mL/day", "renal"),
    "sodium": _SODIUM,
    "potassium": Plausible(1, 12, "mmol/L", "electrolytes"),
    "chloride": Plausible(50, 160, "mmol/L", "electrolytes"),
    "bicarbonate": Plausible(1, 60, "mmol/L", "electrolytes"),
    "heart_rate": _HEART_RATE,
    "respiratory_rate": _RESPIRATORY_RATE,
    "systolic_bp": _SYSTOLIC,
    "diastolic_bp": Plausible(10, 200, "mm Hg", "vital_signs"),
    "mean_arterial_pressure": _MAP,
    "temperature_c": _TEMPERATURE,
    "oxygen_saturation": Plausible(20, 100, "%", "blood_gas"),
    "fio2_percent": _FIO2,
    "pao2": _PAO2,
    "paco2": Plausible(5, 250, "mm Hg", "blood_gas"),
    "a_a_gradient": Plausible(0, 700, "mm Hg", "blood_gas"),
    "arterial_ph": Plausible(6.3, 8.0, "", "blood_gas"),
    "glucose_mg_dl": _GLUCOSE,
    "bun_mg_dl": _BUN,
    "calcium_mg_dl": Plausible(2, 25, "mg/dL", "chemistry"),
    "albumin_g_dl": _ALBUMIN,
    "normal_albumin_g_dl": Plausible(3, 5.5, "g/dL", "chemistry"),
    "bilirubin_mg_dl": _BILIRUBIN,
    "total_cholesterol_mg_dl": _CHOLESTEROL,
    "hdl_mg_dl": Plausible(5, 250, "mg/dL", "chemistry"),
    "triglycerides_mg_dl": Plausible(10, 20000, "mg/dL", "chemistry"),
    "insulin_uiu_ml": Plausible(0.5, 1000, "µIU/mL", "chemistry"),
    "alt": _ENZYME,
    "ast": _ENZYME,
    "hemoglobin_g_dl": Plausible(1, 25, "g/dL", "haematology"),
    "hematocrit": _HEMATOCRIT,
    "inr": _INR,
    "platelets_10_3_ul": Plausible(1, 3000, "10^3/µL", "haematology"),
    "platelets_10_9_l": Plausible(1, 3000, "10^9/L", "haematology"),
    "wbc_10_3_ul": Plausible(0.05, 1000, "10^3/µL", "haematology"),
    "wbc_per_ul": Plausible(50, 1_000_000, "per µL", "haematology"),
    "bands_percent": Plausible(0, 100, "%", "haematology"),
    "qt_msec": _QT,
    "dose_mg": Plausible(0.01, 5000, "mg", "dosing"),
    "alcohol_drinks_per_week": Plausible(0, 300, "drinks/week", "alcohol"),
    "cycle_length_days": Plausible(20, 60, "days", "obstetrics"),
}


def physiologic_range(field: str) -> Plausible | None:
    return PHYSIOLOGIC.get(field)
