"""Calculator-specific phrasings in questions: GCS components, steroid and opioid doses, dates, grades."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from voiceassist.tools.calculators.dosing import Opioid, Steroid

Params = dict[str, Any]

_DATE = r"(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4})"


def _date(text: str) -> dt.date:
    if "-" in text:
        return dt.date.fromisoformat(text)
    return dt.datetime.strptime(text, "%m/%d/%Y").date()


def dates(text: str) -> Params:
    params: Params = {}
    lmp = re.search(rf"(?:lmp|last menstrual period|last period)\D{{0,20}}{_DATE}", text)
    if lmp:
        params["last_menstrual_period"] = _date(lmp.group(1))
    today = re.search(rf"(?:today|current date|now|as of|on)\D{{0,12}}{_DATE}", text)
    if today and (not lmp or today.start() != lmp.start()):
        params["current_date"] = _date(today.group(1))
    cycle = re.search(r"(\d{2})[- ]day cycles?|cycles? (?:length )?(?:of )?(\d{2})", text)
    if cycle:
        params["cycle_length_days"] = int(cycle.group(1) or cycle.group(2))
    return params


def gcs(text: str) -> Params:
    params: Params = {}
    compact = re.search(r"\be\s*(\d)\s*v\s*(\d)\s*m\s*(\d)\b", text)
    if compact:
        return {"eye": int(compact.group(1)), "verbal": int(compact.group(2)), "motor": int(compact.group(3))}
    eye = [(r"eyes? open\w* spontan|spontaneous\w* eye|opens? (?:his |her )?eyes spontan", 4),
           (r"eyes? open\w* to (?:voice|speech|verbal|command|sound)|opens? (?:his |her )?eyes to (?:voice|speech)", 3),
           (r"eyes? open\w* to pain|opens? (?:his |her )?eyes to pain", 2), (r"no eye opening|eyes closed", 1)]
    verbal = [(r"\boriented\b", 5), (r"\bconfused\b", 4), (r"inappropriate words", 3), (r"incomprehensible", 2),
              (r"no verbal|nonverbal|no speech|mute", 1)]
    motor = [(r"obeys", 6), (r"locali[sz]", 5), (r"withdraw", 4), (r"abnormal flexion|flexion|decorticate", 3),
             (r"extension|decerebrate", 2), (r"no motor|flaccid", 1)]
    for field, options in (("eye", eye), ("verbal", verbal), ("motor", motor)):
        for pattern, points in options:
            if re.search(pattern, text):
                params[field] = points
                break
    return params


def steroid(text: str) -> Params:
    names = "|".join(sorted((member.value for member in Steroid), key=len, reverse=True))
    params: Params = {}
    dosed = re.search(rf"({names})\s*(?:of\s*)?(\d+(?:\.\d+)?)\s*mg|(\d+(?:\.\d+)?)\s*mg\s*(?:of\s*)?({names})", text)
    if dosed:
        params["from_steroid"] = dosed.group(1) or dosed.group(4)
        params["dose_mg"] = float(dosed.group(2) or dosed.group(3))
    target = re.search(rf"(?:to|into|in|of|as)\s+(?:iv\s+|po\s+|oral\s+)?({names})\b(?!\s*\d)", text)
    if target and target.group(1) != params.get("from_steroid"):
        params["to_steroid"] = target.group(1)
    return params


_FREQUENCY = [(r"\bq\s*(\d+)\s*h", None), (r"every (\d+) hours", None), (r"\bqid\b|four times", 4.0),
              (r"\btid\b|three times", 3.0), (r"\bbid\b|twice", 2.0), (r"\bdaily\b|\bqd\b|once a day|per day", 1.0)]


def _per_day(clause: str) -> float:
    for pattern, per_day in _FREQUENCY:
        match = re.search(pattern, clause)
        if match:
            return per_day if per_day is not None else 24 / float(match.group(1))
    return 1.0


def mme(text: str) -> Params:
    names = {member.value.replace("_", " "): member.value for member in Opioid} | {"fentanyl": "fentanyl_buccal"}
    pattern = "|".join(sorted(names, key=len, reverse=True))
    opioids = []
    for clause in re.split(r",|;|\band\b|\bplus\b", text):
        match = re.search(rf"({pattern})\D{{0,15}}?(\d+(?:\.\d+)?)\s*(mg|mcg|µg|ug)?", clause)
        if match:
            opioids.append({"opioid": names[match.group(1)], "dose": float(match.group(2)),
                            "doses_per_day": _per_day(clause)})
    return {"opioids": opioids} if opioids else {}


def child_pugh(text: str) -> Params:
    params: Params = {}
    if re.search(r"(?:no|without) ascites", text):
        params["ascites"] = "absent"
    elif re.search(r"(?:moderate|severe|tense|large)\s+ascites", text):
        params["ascites"] = "moderate"
    elif "ascites" in text:
        params["ascites"] = "slight"
    if re.search(r"(?:no|without) (?:hepatic )?encephalopathy", text):
        params["encephalopathy"] = "none"
    elif re.search(r"grade (?:3|4|iii|iv)|severe (?:hepatic )?encephalopathy|coma", text):
        params["encephalopathy"] = "grade_3_4"
    elif "encephalopathy" in text:
        params["encephalopathy"] = "grade_1_2"
    return params


def _cough_absent(text: str) -> bool:
    return not re.search(r"(?<!no )(?<!without )(?<!denies )\bcough", text)


def heart(text: str) -> Params:
    params: Params = {}
    for level in ("highly", "moderately", "slightly"):
        if re.search(rf"{level} suspicious", text):
            params["history"] = level
    if re.search(r"st[\s-](?:segment )?(?:depression|elevation|deviation)", text):
        params["ecg"] = "significant_st_deviation"
    elif re.search(r"repolari[sz]ation|non-?specific", text):
        params["ecg"] = "nonspecific_repolarization"
    if re.search(r"troponin\D{0,30}(?:more than|above|over|>)\s*(?:3|three)", text):
        params["troponin"] = "above_three_times"
    elif re.search(r"(?:elevated|raised|positive) troponin|troponin\D{0,20}(?:elevated|raised|1-3|twice)", text):
        params["troponin"] = "one_to_three_times"
    return params


SPECIAL_EXTRACTORS: dict[str, Callable[[str], Params]] = {
    "due_date": dates, "conception_date": dates, "gestational_age": dates,
    "glasgow_coma_scale": gcs, "steroid_conversion": steroid, "morphine_milligram_equivalents": mme,
    "child_pugh": child_pugh, "heart_score": heart,
    "centor": lambda text: {"cough_absent": _cough_absent(text)},
    "feverpain": lambda text: {"no_cough_or_coryza": _cough_absent(text) and "coryza" not in text.replace(
        "no coryza", "")},
    "hasbled": lambda text: {"alcohol_drinks_per_week": 8} if re.search(r"alcohol (?:abuse|excess)|heavy drink", text)
    and not re.search(r"\d+\s*drinks", text) else {},
    "target_weight": lambda text: {"target_bmi": float(m.group(1))} if (
        m := re.search(r"(?:target |goal )?bmi (?:of |target )?(\d+(?:\.\d+)?)", text)) else {},
    "mdrd_gfr": lambda text: {"black": True} if re.search(r"\bblack\b|african[- ]american", text) else {},
    "grace": lambda text: {"killip_class": {"i": 1, "ii": 2, "iii": 3, "iv": 4}.get(m.group(1), 1)} if (
        m := re.search(r"killip (?:class )?(iv|iii|ii|i)\b", text)) else {},
    "meld": lambda text: {"creatinine_mg_dl": 4.0} if re.search(r"(?<!no )dialysis", text)
    and not re.search(r"\b(?:creatinine|cr)\b", text) else {},
    "sofa": lambda text: {"ventilated": True} if re.search(r"ventilat|intubat|cpap", text) else {},
}
