"""Fillers of the hard no-PHI questions (phi_sets.py): what looks like PHI in clinical text and is not.

Each word list is split by a stable hash, so the held-out questions carry eponyms, drugs, genes, guidelines
and departments the development questions never show.
"""

from __future__ import annotations

import random
from collections.abc import Callable


def _words(text: str) -> list[str]:
    return text.split()


EPONYMS = _words("""Kawasaki Still Bell Horner Addison Wilson Conn Sheehan Kaposi Tietze Peutz-Jeghers Ehlers-Danlos
Wolff-Parkinson-White Brugada Osler Murphy Cullen Trousseau Beck Cushing Virchow Homans McBurney Kehr
Pemberton Brown-Sequard Guillain-Barre Stevens-Johnson Takotsubo Wernicke Meigs Budd-Chiari Dressler Lemierre
Fournier Ludwig Bartter Gitelman Liddle Alport Fabry Gaucher Niemann-Pick Tay-Sachs Marfan Turner Noonan
Prader-Willi Angelman Hashimoto Graves Crohn Sjogren Behcet Raynaud Paget Hodgkin Burkitt Ewing Wilms
Duchenne Becker Charcot Kussmaul Cheyne-Stokes Korsakoff Hirschsprung Meckel Barrett Zenker Mallory-Weiss
Boerhaave Gilbert Dubin-Johnson Crigler-Najjar Rotor Lyme Chagas Hansen Whipple Kimura Castleman Erdheim
Churg-Strauss Wegener Goodpasture Henoch-Schonlein Berger Kimmelstiel-Wilson Fanconi Diamond-Blackfan
Waldenstrom Sezary Richter Plummer-Vinson Bouchard Heberden Baker Dupuytren Peyronie Osgood-Schlatter
Legg-Calve-Perthes Perthes Sever Kienbock Scheuermann Bankart Hill-Sachs Colles Smith Barton Bennett
Rolando Monteggia Galeazzi Jones Lisfranc Maisonneuve Tillaux Salter-Harris Apgar Glasgow Ranson Child-Pugh
Rockall Blatchford Alvarado Centor Wells Geneva Caprini Padua Braden Norton Waterlow Gleason Breslow Clark
Bosniak Bethesda Fontaine Rutherford Killip Forrester Duke Jones Mallampati Cormack-Lehane Hunt-Hess Fisher
Spetzler-Martin Hoehn-Yahr Tanner Denver Moro Babinski Romberg Kernig Brudzinski Lhermitte Tinel Phalen
Finkelstein Trendelenburg Thomas Ortolani Barlow Galeazzi Lachman McMurray Apley Hawkins Neer Speed Yergason""")
DRUGS = _words("""metformin apixaban rivaroxaban dabigatran lisinopril ramipril amlodipine bisoprolol furosemide
spironolactone empagliflozin dapagliflozin semaglutide liraglutide warfarin enoxaparin vancomycin gentamicin
ceftriaxone levetiracetam lamotrigine valproate lithium quetiapine haloperidol sertraline citalopram
mirtazapine tramadol oxycodone morphine methotrexate adalimumab tocilizumab rituximab pembrolizumab nivolumab
tamoxifen letrozole allopurinol febuxostat colchicine prednisolone hydrocortisone dexamethasone
levothyroxine carbimazole digoxin amiodarone Xarelto Eliquis Ozempic Keytruda Humira Lasix Zoloft Jardiance
Entresto Trulicity Lantus Januvia Farxiga Brilinta Plavix Lipitor Crestor Synthroid Norvasc Zithromax Augmentin
Keppra Depakote Seroquel Abilify Lexapro Wellbutrin Xanax Ativan Tegretol Dilantin Coumadin Pradaxa Praluent
Repatha Dupixent Stelara Skyrizi Otezla Rinvoq Xeljanz Enbrel Remicade Entyvio Ocrevus Tecfidera Gilenya""")
GENES = _words("""BRCA1 BRCA2 EGFR KRAS HER2 TP53 CYP2C19 HLA-B*5801 TPMT DPYD JAK2 BCR-ABL MTHFR APOE4 CFTR SMN1 FMR1
HFE PCSK9 ALK ROS1 BRAF NRAS PIK3CA MLH1 MSH2 PALB2 CHEK2 ATM RET VHL NF1 HLA-B27 CYP2D6 UGT1A1 SLCO1B1
FLT3 NPM1 IDH1 IDH2 MYC BCL2 KIT PDGFRA""")
GUIDELINES = _words("""NICE ESC AHA/ACC KDIGO GOLD GINA ADA IDSA BTS SIGN WHO ACOG USPSTF ESH EULAR ACR EASL AASLD
NCCN ESMO ASCO AAP RCOG ERC ATS""")
DEPARTMENTS = _words("""Cardiology Nephrology Haematology Oncology Rheumatology Endocrinology Gastroenterology Neurology
Dermatology Orthopaedics Paediatrics Obstetrics Urology Ophthalmology Psychiatry Radiology Anaesthetics
Geriatrics Microbiology Pharmacy""")
TRIALS = _words("""EMPEROR-Reduced DAPA-HF PARADIGM-HF SPRINT ACCORD RECOVERY COMPASS FOURIER ODYSSEY CREDENCE
EMPA-REG ISCHEMIA PARTNER RE-LY ARISTOTLE ROCKET-AF""")
ICD = _words("E11.21 I10 N18.4 J44.1 I48.0 E78.5 K21.9 M81.0 F32.1 G40.909 C50.912 Z79.01")


def negative_values(rng: random.Random, part: str, part_of: Callable[[str], str]
                    ) -> dict[str, Callable[[], str]]:
    """Filler generators for one part; each word list keeps only its share for that part."""
    def share(name: str, words: list[str]) -> list[str]:
        return [w for w in dict.fromkeys(words) if part_of(f"{name}:{w}") == part] or words

    def pick(name: str, words: list[str]) -> Callable[[], str]:
        kept = share(name, words)
        return lambda: rng.choice(kept)

    def trial() -> str:
        return rng.choice([f"NCT0{rng.randint(1000000, 5999999)}", rng.choice(share("trial", TRIALS))])

    return {
        "age": lambda: str(rng.randint(1, 89)), "child_age": lambda: str(rng.randint(1, 15)),
        "year": lambda: str(rng.randint(1985, 2026)), "eponym": pick("eponym", EPONYMS),
        "drug": pick("drug", DRUGS), "gene": pick("gene", GENES), "guideline": pick("guideline", GUIDELINES),
        "department": pick("department", DEPARTMENTS), "trial": trial, "icd": pick("icd", ICD),
        "dose": lambda: rng.choice(["2.5", "5", "10", "20", "40", "100", "250", "500", "1000"]),
        "egfr": lambda: str(rng.randint(12, 95)), "creat": lambda: f"{rng.uniform(0.5, 6):.1f}",
        "k": lambda: f"{rng.uniform(2.8, 6.8):.1f}", "score": lambda: str(rng.randint(0, 9)),
        "pmid": lambda: str(rng.randint(10000000, 39999999)),
        "platelets": lambda: str(rng.randint(9, 450) * 1000), "gcs": lambda: str(rng.randint(3, 15)),
        "ddimer": lambda: str(rng.randint(150, 6000)), "ferritin": lambda: str(rng.randint(8, 4000)),
        "tsat": lambda: str(rng.randint(5, 95)),
        "section": lambda: ".".join(str(rng.randint(1, 9)) for _ in range(3)),
        "bp": lambda: f"{rng.randint(95, 210)}/{rng.randint(50, 120)}", 
        "ckd": lambda: rng.choice(["1", "2", "3a", "3b", "4", "5"]),
        "weight": lambda: str(rng.randint(4, 60)),
    }
