"""Query enhancement: clinical abbreviations expanded in place before a query is searched.

A clinician asks "apixaban dose in AF with CKD"; the knowledge base says "atrial fibrillation" and "chronic
kidney disease". BM25 cannot match an abbreviation to its long form, and a small sentence embedder knows
few of them, so each known abbreviation gets its long form appended in brackets ("AF (atrial
fibrillation)"): the original token still matches texts that use it, and both sub-queries see the words.

The dictionary below holds abbreviations with one dominant meaning in clinical questions, which search
expands (measured on SciFact and NFCorpus, docs/benchmarks.md); the evidence score also reads the shipped
clinical abbreviation list (query/terminology.py), every meaning of an ambiguous abbreviation
(`abbreviation_meanings`), and `expand_query` adds the drug names and shorthand of query/concepts.py.

Only the forms written here match, case included, because case separates meanings ("eGFR" the kidney
function estimate, "EGFR" the receptor); a plural "s" after a capitalised form is accepted ("NSAIDs").
Entries are limited to abbreviations with one dominant meaning in clinical questions: "PD" (Parkinson's
disease or peritoneal dialysis), "AD", "ART" and "ALL" are left out.
"""

from __future__ import annotations

import re

from voiceassist.query import concepts, synonyms, terminology

CLINICAL_ABBREVIATIONS: dict[str, str] = {
    # cardiovascular
    "MI": "myocardial infarction", "STEMI": "ST-elevation myocardial infarction",
    "NSTEMI": "non-ST-elevation myocardial infarction", "ACS": "acute coronary syndrome",
    "CAD": "coronary artery disease", "CHF": "congestive heart failure", "HF": "heart failure",
    "HFrEF": "heart failure with reduced ejection fraction",
    "HFpEF": "heart failure with preserved ejection fraction", "AF": "atrial fibrillation",
    "AFib": "atrial fibrillation", "HTN": "hypertension", "DVT": "deep vein thrombosis",
    "PE": "pulmonary embolism", "VTE": "venous thromboembolism", "PAD": "peripheral artery disease",
    "CABG": "coronary artery bypass graft", "PCI": "percutaneous coronary intervention",
    "LVEF": "left ventricular ejection fraction", "ECG": "electrocardiogram", "EKG": "electrocardiogram",
    "ACEI": "angiotensin-converting enzyme inhibitor", "ARB": "angiotensin receptor blocker",
    "CCB": "calcium channel blocker", "DOAC": "direct oral anticoagulant",
    "NOAC": "non-vitamin K oral anticoagulant", "INR": "international normalized ratio",
    "LDL": "low-density lipoprotein cholesterol", "HDL": "high-density lipoprotein cholesterol",
    "TIA": "transient ischemic attack", "CVA": "cerebrovascular accident stroke",
    "SVT": "supraventricular tachycardia",
    # respiratory
    "COPD": "chronic obstructive pulmonary disease", "ARDS": "acute respiratory distress syndrome",
    "OSA": "obstructive sleep apnea", "URTI": "upper respiratory tract infection",
    "CAP": "community-acquired pneumonia", "TB": "tuberculosis", "ICS": "inhaled corticosteroid",
    "LABA": "long-acting beta agonist", "SABA": "short-acting beta agonist",
    # endocrine and renal
    "DM": "diabetes mellitus", "T1DM": "type 1 diabetes mellitus", "T2DM": "type 2 diabetes mellitus",
    "DKA": "diabetic ketoacidosis", "HbA1c": "glycated hemoglobin", "TSH": "thyroid-stimulating hormone",
    "PCOS": "polycystic ovary syndrome", "SGLT2": "sodium-glucose cotransporter 2",
    "CKD": "chronic kidney disease", "AKI": "acute kidney injury", "ESRD": "end-stage renal disease",
    "eGFR": "estimated glomerular filtration rate", "UTI": "urinary tract infection",
    "BPH": "benign prostatic hyperplasia",
    # gastrointestinal and liver
    "GERD": "gastroesophageal reflux disease", "GORD": "gastro-oesophageal reflux disease",
    "IBD": "inflammatory bowel disease", "IBS": "irritable bowel syndrome", "UC": "ulcerative colitis",
    "PPI": "proton pump inhibitor", "NAFLD": "non-alcoholic fatty liver disease",
    "HCC": "hepatocellular carcinoma",
    # neurology and psychiatry
    "MS": "multiple sclerosis", "ALS": "amyotrophic lateral sclerosis",
    "ADHD": "attention deficit hyperactivity disorder", "PTSD": "post-traumatic stress disorder",
    "OCD": "obsessive-compulsive disorder", "MDD": "major depressive disorder",
    "SSRI": "selective serotonin reuptake inhibitor", "SNRI": "serotonin-norepinephrine reuptake inhibitor",
    "TCA": "tricyclic antidepressant", "MAOI": "monoamine oxidase inhibitor", "TBI": "traumatic brain injury",
    "SAH": "subarachnoid hemorrhage",
    # infection
    "HIV": "human immunodeficiency virus", "AIDS": "acquired immunodeficiency syndrome",
    "HBV": "hepatitis B virus", "HCV": "hepatitis C virus", "HPV": "human papillomavirus",
    "MRSA": "methicillin-resistant Staphylococcus aureus", "RSV": "respiratory syncytial virus",
    "CMV": "cytomegalovirus", "EBV": "Epstein-Barr virus", "HSV": "herpes simplex virus",
    "STI": "sexually transmitted infection",
    # rheumatology, oncology
    "RA": "rheumatoid arthritis", "SLE": "systemic lupus erythematosus", "OA": "osteoarthritis",
    "NSAID": "nonsteroidal anti-inflammatory drug", "DMARD": "disease-modifying antirheumatic drug",
    "NSCLC": "non-small cell lung cancer", "SCLC": "small cell lung cancer", "CRC": "colorectal cancer",
    "AML": "acute myeloid leukemia", "CLL": "chronic lymphocytic leukemia", "CML": "chronic myeloid leukemia",
    "NHL": "non-Hodgkin lymphoma", "PSA": "prostate-specific antigen",
    # general
    "BMI": "body mass index", "ICU": "intensive care unit", "CPR": "cardiopulmonary resuscitation",
    "CT": "computed tomography", "MRI": "magnetic resonance imaging", "CBC": "complete blood count",
    "CRP": "C-reactive protein", "ESR": "erythrocyte sedimentation rate", "WBC": "white blood cell count",
    "RCT": "randomized controlled trial", "CSF": "cerebrospinal fluid", "SIDS": "sudden infant death syndrome",
    "IVF": "in vitro fertilization", "HRT": "hormone replacement therapy", "OCP": "oral contraceptive pill",
    "BPA": "bisphenol A", "PRN": "as needed", "BID": "twice daily", "TID": "three times daily",
}

_WORD = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*)(?![\w-])")


def expand_abbreviations(text: str, abbreviations: dict[str, str] = CLINICAL_ABBREVIATIONS) -> str:
    """`text` with "(long form)" after each known abbreviation, once per abbreviation; unchanged otherwise.

    An abbreviation whose long form the text already spells out is left alone.
    """
    expanded: list[str] = []
    done: set[str] = set()
    position = 0
    for match in _WORD.finditer(text):
        word = match.group(1)
        key = word if word in abbreviations else word[:-1] if _is_capital_plural(word, abbreviations) else None
        if key is None or key in done or _spelt(abbreviations[key]) in _spelt(text):
            continue
        done.add(key)
        expanded.append(text[position : match.end()] + f" ({abbreviations[key]})")
        position = match.end()
    return "".join(expanded) + text[position:]


def _spelt(text: str) -> str:
    return text.casefold().replace("-", " ")


def _is_capital_plural(word: str, abbreviations: dict[str, str]) -> bool:
    return word.endswith("s") and word[:-1] in abbreviations and word[:-1].isupper()


def abbreviation_meanings(word: str) -> tuple[str, ...]:
    """What an abbreviation, as written, stands for: the dominant meaning above when it has one, else every
    meaning the shipped list gives (the passage decides which); a capitalised plural ("NSAIDs") as its
    singular. () for a word that is no known abbreviation."""
    for key in (word, word[:-1] if word.endswith("s") and word[:-1].isupper() else None):
        if key is None:
            continue
        if key in CLINICAL_ABBREVIATIONS:
            return (CLINICAL_ABBREVIATIONS[key],)
        listed = terminology.abbreviations().get(key)
        if listed and len(key) > 1:
            return listed
    return ()


def expand_query(question: str) -> str:
    """The text the index is searched with: abbreviations, drugs by their generic name and shorthand
    (query/concepts.py), and clinical synonyms (query/synonyms.py), each in brackets after what it explains."""
    return synonyms.expand(expand_abbreviations(concepts.expand(question)))
