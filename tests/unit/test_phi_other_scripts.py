"""Names written in other scripts than Latin (phi/name_scripts.py): a capitalised word of a script with case
("Γιάννης Παπαδόπουλος", "Иван Петров", "Անի Պետրոսյան"), or words of a script without case in a name's position
(after a cue, before what a patient does, PERSON in an English text); a question written in those scripts without a
name stays clean."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.phi.name_scripts import (
    cased_name_shape,
    caseless_script_word,
    mostly_other_script,
    other_script,
    pronounceable,
)

WITH_A_CUE = [
    ("Patient Γιάννης Παπαδόπουλος has asthma", "Γιάννης Παπαδόπουλος"),  # Greek
    ("Ο ασθενής Γιάννης Παπαδόπουλος έχει άσθμα", "Γιάννης Παπαδόπουλος"),
    ("Пациентка Анна Смирнова, 45 лет, жалуется на головную боль", "Анна Смирнова"),  # Cyrillic
    ("Пациент Иван Петров, 54 года, жалуется на боль в груди", "Иван Петров"),
    ("Frau Անի Պետրոսյան has asthma", "Անի Պետրոսյան"),  # Armenian
    ("Patient ნინო ბერიძე has asthma", "ნინო ბერიძე"),  # Georgian (Mkhedruli: no capitals)
    ("Patient מרים כהן has asthma", "מרים כהן"),  # Hebrew
    ("المريض محمد أحمد يعاني من الربو", "محمد أحمد"),  # Arabic
    ("Patient राहुल शर्मा has asthma", "राहुल शर्मा"),  # Devanagari (vowel signs are marks)
    ("患者王小明，男，54岁，胸痛", "王小明"),  # Han, no space after the cue
    ("Patient 王小明 has chest pain", "王小明"),
    ("患者の山田太郎さんは糖尿病です", "山田太郎"),  # Japanese: a name before its honorific
    ("Mr 김민수 has diabetes", "김민수"),  # Hangul
    ("환자 김민수 씨는 당뇨병이 있습니다", "김민수"),
]
WITHOUT_A_CUE = [
    ("Γιάννης Παπαδόπουλος has asthma", "Γιάννης Παπαδόπουλος"),  # the client probe's leak
    ("Иван Петров has asthma", "Иван Петров"),
    ("Can Пётр Глушко take ibuprofen?", "Пётр Глушко"),  # read as "Пётp Глyшкo" by the look-alike fold
    ("Անի Պետրոսյան is 54 and has chest pain", "Անի Պետրոսյան"),
    ("ნინო ბერიძე has asthma", "ნინო ბერიძე"),
    ("מרים כהן has asthma", "מרים כהן"),
    ("محمد أحمد has asthma", "محمد أحمد"),
    ("राहुल शर्मा has asthma", "राहुल शर्मा"),
    ("王小明 has chest pain", "王小明"),
    ("What dose of metformin for 王小明?", "王小明"),
    ("김민수 has diabetes", "김민수"),
    ("Is ibuprofen safe for محمد أحمد with renal failure?", "محمد أحمد"),
]
NO_NAME = [
    "Какая максимальная доза метформина?",  # Russian
    "Можно ли принимать ибупрофен при беременности?",  # the English model's PERSON: "при беременности"
    "Пациент 65 лет с хронической сердечной недостаточностью: какой диуретик выбрать?",
    "какая максимальная доза метформина?",
    "Ποια είναι η μέγιστη δόση μετφορμίνης;",  # Greek; PERSON: "δόση μετφορμίνης"
    "Μπορεί ο ασθενής με νεφρική ανεπάρκεια να πάρει ιβουπροφαίνη;",
    "Ποιες είναι οι παρενέργειες της αμοξικιλλίνης;",
    "二甲双胍的最大剂量是多少？",  # Chinese
    "患者因胸痛入院，应该如何处理？",
    "孕妇可以服用布洛芬吗？",
    "患者さんは、メトホルミンを服用できますか？",  # Japanese: "the patient", politely
    "患者様の血圧が高い場合、どの薬を使いますか？",
    "ما هي الجرعة القصوى من الميتفورمين؟",  # Arabic
    "هل يمكن تناول الإيبوبروفين أثناء الحمل؟",
    "מהו המינון המקסימלי של מטפורמין?",  # Hebrew
    "मेटफॉर्मिन की अधिकतम खुराक क्या है?",  # Hindi; PERSON: "मेटफॉर्मिन की"
    "क्या गर्भावस्था में इबुप्रोफेन लिया जा सकता है?",
    "メトホルミンの最大用量は何ですか？",  # Japanese; PERSON: the whole question
    "메트포르민의 최대 용량은 얼마입니까?",  # Korean
    "Որքա՞ն է մետֆորմինի առավելագույն դոզան:",  # Armenian
    "რა არის მეტფორმინის მაქსიმალური დოზა?",  # Georgian; PERSON: "არის მეტფორმინის"
    "What is the maximum dose of метформин?",
    "What does 糖尿病 mean?",
]


@pytest.mark.parametrize(("text", "name"), WITH_A_CUE + WITHOUT_A_CUE)
def test_phi_a_name_in_another_script_is_redacted(shared_phi_detector: Any, text: str, name: str) -> None:
    result = shared_phi_detector.detect(text)

    assert result.contains_phi and result.error is None
    assert not any(part in result.redacted_text for part in name.split()), result.redacted_text


@pytest.mark.parametrize("text", NO_NAME)
def test_phi_a_question_in_another_script_without_a_name_is_clean(shared_phi_detector: Any, text: str) -> None:
    result = shared_phi_detector.detect(text)

    assert result.error is None
    assert result.entities == [] and result.redacted_text == text


def test_phi_a_name_in_another_script_stays_inside_the_boundary(shared_phi_detector: Any) -> None:
    from voiceassist.errors import PhiBoundaryViolation
    from voiceassist.phi.policy import ensure_no_phi

    with pytest.raises(PhiBoundaryViolation):
        ensure_no_phi("Γιάννης Παπαδόπουλος has asthma", shared_phi_detector)
    ensure_no_phi("Ποια είναι η μέγιστη δόση μετφορμίνης;", shared_phi_detector)  # no name: may leave


def test_script_shapes_follow_unicode_case() -> None:
    assert cased_name_shape("Παπαδόπουλος") and cased_name_shape("Иван") and cased_name_shape("Անի")
    assert not cased_name_shape("δόση") and not cased_name_shape("ΔΝΑ") and not cased_name_shape("Anna")
    assert not cased_name_shape("王小明") and not cased_name_shape("ნინო")  # no case: Mkhedruli titlecases to itself
    assert caseless_script_word("王小明") and caseless_script_word("राहुल") and caseless_script_word("ნინო")
    assert not caseless_script_word("Иван") and not caseless_script_word("Anna") and not caseless_script_word("王1")
    assert other_script("राहुल") and not other_script("Пётp")  # a look-alike fold leaves a Latin "p"
    assert pronounceable("Пётp") and pronounceable("Anna") and not pronounceable("Dr")
    assert mostly_other_script("Какая доза метформина?") and not mostly_other_script("Patient 王小明 has chest pain")
