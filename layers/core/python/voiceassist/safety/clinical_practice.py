"""A clinician's practice asked of a named thing (session 18, fp18), read as care as act_reader.py's `care_act` reads an
act on a patient: a conversation led, a dose adjusted, a clinical tool applied, information shared for
safeguarding, a drug started or stopped on a person."""

from __future__ import annotations

import re

from voiceassist.phi.word_lists import DRUG_WORDS, word_list
from voiceassist.safety.act_reader import (
    _CAUSED,
    _COMFORT,
    _NOT_A_PATIENT,
    MAX_WORDS,
    aims_harm,
    care_act,
)
from voiceassist.safety.prescribing import prescribed

# (session 18, fp18) A clinician's practice asked of a named thing, read as care as `care_act` reads an act on a
# patient: the meaning model reads the topic of these questions (a poisoning, a child at risk, "bad news", a DNACPR
# order) as harmful, and the attack classifier reads a named tool's words; the act asked is the clinician's own.
# Three acts, each with its object named, and the guards of `care_act` (no harmful outcome sought, no harm named
# outside a condition, no result wanted of a person, nothing hidden or put in food, no evasion or harm of the asker's):
#
# 1. a conversation led: the verbs of WordNet 3.0's communicate.v.02 troponyms a clinician leads a talk with
#    (discuss.v.01, counsel.v.01, converse.v.01 "carry on a conversation", hold / have / conduct a talk), "break the
#    news" (break is a lemma of reveal.v.02, "make known ... information that was previously known only to a few
#    people") and approach, go about "begin to deal with" ("approach a conversation"), with a talk as the object
#    (conversation.n.01, discussion.n.01, news.n.01, a diagnosis or prognosis given, a family meeting): "How do I
#    approach a DNACPR conversation with a family", "How to break bad news using SPIKES"; "how do I approach her so
#    she takes the overdose" has no talk as its object and is not read;
# 2. a dose adjusted: a drug of the shipped drug word list (phi/word_lists.DRUG_WORDS) with a verb of dose
#    adjustment (WordNet's titrate.v.01 as the BNF uses it, "titrate the dose"; taper.v.02 "diminish gradually";
#    wean.v.01 as "wean off"), within six words of each other: "atropine how to titrate?";
# 3. a named clinical tool applied: apply.v.01 ("put into service; make work or employ for a particular purpose"),
#    use.v.01, interpret.v.01, score, calculate.v.01 of a tool of a guideline's publisher (the bodies NICE's
#    evidence search lists as guideline producers: NICE, SIGN, WHO, the royal colleges, the resuscitation councils)
#    or a clinical tool's noun (score, criteria, rule, scale, traffic light system, pathway, algorithm, chart,
#    classification): "how to apply the NICE traffic light system";
# 4. information shared for safeguarding: share.v.02 ("communicate") or disclose.v.01 / pass on of information,
#    records or concerns with one of the agencies HM Government's "Information sharing: advice for practitioners
#    providing safeguarding services" (2018, 2024) names as the ones shared with (children's or adult social care,
#    social work or services, the police, the safeguarding lead or team, the MASH, the local authority, the GP, the
#    health visitor, the school nurse); the guidance's own question is whether to share without consent, so a
#    "without consent" is not read as concealment here: "Can I share info about a child at risk with social work
#    without the parents' consent?". Shared with anyone else ("share her address with her ex") is not read.
# a talk held (have, hold, lead ... a conversation) or a message given (break, deliver, give ... the news): "have a
# diagnosis" is a patient's, not a talk
_INFLECTION = r"(?:s|es|ed|d|ing)?"
_TALK_HELD = (r"(?:approach|have|hold|lead|start|open|begin|conduct|handle|run|structure|plan|prepare\s+for|navigate"
              r"|broach|raise|tackle|frame|document)" + _INFLECTION + r"\s+(?:[\w'’-]+\s+){0,4}?(?:conversations?"
              r"|discussions?|talks?|chats?|consultations?|(?:family|best\s+interests?)\s+meetings?)")
_MESSAGE_GIVEN = (r"(?:approach|break|deliver|give|share|discuss|explain|handle|tackle|broach|structure)" + _INFLECTION
                  + r"\s+(?:[\w'’-]+\s+){0,4}?(?:news|diagnos[ie]s|prognos[ie]s)")
TALK_LED = re.compile(
    r"\b(?:how|what|when|where|which|tips|advice|best\s+way|any)\b[^.?!\n]{0,40}?\b(?:" + _TALK_HELD + r"|"
    + _MESSAGE_GIVEN + r")\b"
    # counsel or talk with a patient or family about a matter of their care: "how do I counsel parents about ..."
    r"|\b(?:how|what|when)\b[^.?!\n]{0,40}?\b(?:counsel|talk\s+to|talk\s+with|speak\s+to|speak\s+with|discuss\s+\w+"
    r"\s+with)\w*\s+(?:(?:the|a|an|my|our|this|their|his|her|anxious|angry|grieving|upset)\s+)?(?:family|families"
    r"|relatives?|parents?|patients?|carers?|next\s+of\s+kin|nok)\b", re.I)
_DOSE_VERB = re.compile(r"^(?:(?:up|down)-?)?(?:titrat|taper|wean)\w*$", re.I)
_WORD = re.compile(r"[\w-]+")
_PUBLISHER = (r"(?:NICE|SIGN|WHO|BTS|BSG|BHIVA|BASHH|BAD|RCUK|ERC|APLS|ALS|ATLS|RCPCH|RCOG|RCEM|RCP|RCGP|RCPsych"
              r"|UKHSA|PHE|NHS|BNFc?|CDC|AHA|ACC|ESC|IDSA|KDIGO|GOLD|GINA|ACOG|AAP|JBDS|BSH|BSR|ESPGHAN)")
_TOOL_NOUN = (r"(?:scores?|scoring\s+system|criteria|rules?|scales?|traffic[- ]light\s+(?:system|table|tool)"
              r"|pathways?|algorithms?|ladders?|charts?|classifications?|staging|tools?|checklists?|decision\s+aids?"
              r"|guidelines?|guidance|framework|system)")
TOOL_APPLIED = re.compile(
    r"\b(?i:how|what|when|which|can|should|do|does|is)\b[^.?!\n]{0,40}?\b(?i:apply|applies|applying|applied|use"
    r"|uses|using|interpret\w*|calculat\w*|scor(?:e|es|ed|ing)|work\s+out|follow\w*)\s+(?i:the\s+|a\s+)?"
    + _PUBLISHER + r"\b(?:\s+[\w-]+){0,3}?\s+(?i:" + _TOOL_NOUN + r")\b")
_SHARED = re.compile(
    r"\b(?:share|shares|shared|sharing|disclose|disclosed|disclosing|pass\s+on|passing\s+on|pass|send|sending"
    r"|tell|telling|inform|informing|refer|referring)\b[^.?!\n]{0,60}?\b(?:with|to)\s+(?:the\s+|a\s+|our\s+|my\s+)?"
    r"(?:(?:children['’]?s|adult|local)\s+)?(?:social\s+(?:work|workers?|services|care)|police|safeguarding\s+(?:lead"
    r"|team|nurse|officer|hub)|mash|local\s+authority|lado|gp|health\s+visitors?|school\s+nurse|named\s+(?:nurse"
    r"|doctor)|designated\s+(?:nurse|doctor|safeguarding\s+lead))\b", re.I)
_SHARED_THING = re.compile(r"\b(?:info|information|records?|notes|details|concerns?|disclosures?|history|results?"
                           r"|what\s+(?:they|he|she)\s+(?:said|told|disclosed))\b", re.I)
_NEWS_OF = re.compile(r"\b(?:news|diagnosis|prognosis)\s+(?:of|that)\s+(?:[\w'’-]+\s+){0,3}?(?:death|dying|died"
                      r"|stillbirth|miscarriage|loss|cancer|deterioration)\b", re.I)
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9-]{2,}\b")
_CONSENT_ASKED = re.compile(r"\bwithout\s+(?:the\s+|their\s+|his\s+|her\s+)?(?:[\w'’-]+\s+){0,2}?(?:consent"
                            r"|permission|agreement)\b", re.I)


def _drug_dose_adjusted(text: str) -> bool:
    """Whether a drug of the shipped list is titrated, tapered or weaned within six words (part 2 above)."""
    drugs = word_list(DRUG_WORDS)
    words = [w.lower() for w in _WORD.findall(text)]
    return any(_DOSE_VERB.match(w) and any(near in drugs for near in words[max(0, i - 6) : i + 7])
               for i, w in enumerate(words))


def practice_asked(text: str) -> str | None:
    """Which clinical practice the text asks how to carry out ("talk", "dose", "tool", "sharing": the four acts
    above; "prescribing", a drug started or stopped on a person), with none of care_act's aims of harm; None when it
    asks none or a guard holds."""
    if len(text.split()) > MAX_WORDS:
        return None
    # (session 19, fix20) a drug started, switched or stopped on a person (prescribing.py), asked as care_act reads an
    # act of care, with or without a question mark (a transcript has none): "how do I start somebody on metformin"
    asked_prescribing = "prescribing" if prescribed(text) and care_act(text) else None
    if "?" not in text:
        return asked_prescribing
    sharing = bool(_SHARED.search(text) and _SHARED_THING.search(text))
    kind = ("talk" if TALK_LED.search(text) else "tool" if TOOL_APPLIED.search(text) else "sharing" if sharing
            else "dose" if _drug_dose_adjusted(text) else None)
    if kind is None:
        return asked_prescribing
    unhidden = _CONSENT_ASKED.sub(" ", text) if kind == "sharing" else text
    # a protocol named by its acronym is not a verb ("using SPIKES": the breaking-bad-news protocol, not spiking)
    if not text.isupper():
        unhidden = _ACRONYM.sub(" ", unhidden)
    caused = [m for m in _CAUSED.finditer(text) if not _COMFORT.match(text, m.start())]
    # what the news told is (a death, a stillbirth) is not a harm sought: "break the news of a child's death"
    told = _NEWS_OF.sub(" news ", text) if kind == "talk" else text
    harmed = (aims_harm(text, result_in=text, named_in=told, hidden_in=unhidden, caused=caused)
              or _NOT_A_PATIENT.search(text))
    return None if harmed else kind
