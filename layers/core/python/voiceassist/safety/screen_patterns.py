"""The input screen's patterns read in one form of a text (`_pattern_kinds`): the document screen's instruction
patterns (ingest/injection.py), the question patterns below (prompt leaking, pretending, privilege escalation and
HarmBench's semantic categories as requests, with a clinical encounter's cast and a device's own notices and modes
told apart), and every shape and reading module of this package."""

from __future__ import annotations

import re

from voiceassist.ingest.injection import PATTERNS as DOCUMENT_PATTERNS
from voiceassist.safety.act_harm import harm_act_kinds
from voiceassist.safety.authority_shapes import authority_shape_kinds
from voiceassist.safety.channel_shapes import channel_shape_kinds
from voiceassist.safety.code_switching import code_switched_kinds
from voiceassist.safety.crosslingual import crosslingual_kinds
from voiceassist.safety.extraction_shapes import extraction_shape_kinds
from voiceassist.safety.harm_frames import harm_frame_kinds
from voiceassist.safety.harm_goal import harm_goal_kinds
from voiceassist.safety.harm_shapes import harm_shape_kinds
from voiceassist.safety.intent import intent_kinds
from voiceassist.safety.jailbreak_shapes import jailbreak_shape_kinds
from voiceassist.safety.languages import harm_kinds, jailbreak_kinds, language_kinds
from voiceassist.safety.obfuscation import override_kinds
from voiceassist.safety.pasted_orders import pasted_order_kinds
from voiceassist.safety.purpose_clause import purpose_harm_kinds
from voiceassist.safety.session_shapes import session_shape_kinds
from voiceassist.safety.signals import HARMFUL, INJECTION, JAILBREAK, SELF_HARM, signal_kinds

# pattern kind -> category (the document screen's kinds, and the kinds only a person's message carries)
# (the document screen's "role_play" is replaced by "pretending": its "act as a" reads "can act as a buffer", and a
# clinician asks to "roleplay a breaking bad news conversation": role-play is read when it casts the assistant)
# Health professionals (ILO ISCO-08 minor groups 221-226, 321-325), the people of a clinical encounter, and a
# clinician's acts on a patient: the part a teaching role-play casts
_CLINICAL_CAST = (r"(?:an? |the )?(?:\w+ )?(?:doctor|physician|gp|general practitioner|surgeon|consultant|registrar"
                  r"|junior doctor|resident|intern|house officer|specialist|nurse|midwife|paramedic|pharmacist|dentist"
                  r"|physiotherapist"
                  r"|occupational therapist|dietitian|dietician|radiographer|optometrist|psychologist|health visitor"
                  r"|healthcare assistant|medical student|student nurse|patient|relative|parent|carer|examiner"
                  r"|simulated patient|standardi[sz]ed patient)"
                  r"|examining|assessing|seeing|treating|taking (?:a|the) history|clerking|consulting|counsel+ing"
                  r"|explaining|breaking bad news|triaging|resuscitating"
                  # (session 15) a patient's relative by the relation, a part any patient may bring ("a worried
                  # mother"); not the asker's own ("my grandmother": the persona of a known jailbreak)
                  r"|(?:an?|the) (?:[\w-]+ )?(?:mother|father|mum|mom|dad|son|daughter|husband|wife|partner|sibling"
                  r"|sister|brother|grandmother|grandfather|grandparent|next of kin|family member)")
# A pretence or a role-play that casts a part of a clinical encounter, the assistant's or the asker's
_CLINICAL_ROLE_PLAY = re.compile(
    r"\b(?:pretend (?:to be|you(?:'re| are)|that you(?:'re| are))|role-?play(?:ing)?(?: as)?|play(?:ing)? (?:the )?"
    r"(?:part|role) of|you be|you(?:'re| are) (?:playing|being)|simulat(?:e|ing)|portray(?:ing)?)\s+(?:"
    + _CLINICAL_CAST + r")\b", re.I)
# (session 15) the part cast on the assistant as "you're the / my <clinician>" ("simulate a handover where you're the
# night registrar and test me"), read with a teaching exercise (learning.teaching_asked)
_CAST_AS_YOU = re.compile(r"\byou(?:'re|’re| are)\s+(?:the|my|an?|our)\s+(?:" + _CLINICAL_CAST + r")\b", re.I)
_DOCUMENT_KINDS = {"override": INJECTION, "system_notice": INJECTION, "new_instructions": INJECTION,
                   "prompt_markup": INJECTION, "reveal_prompt": INJECTION}
_QUESTION_PATTERNS: dict[str, tuple[str, re.Pattern[str]]] = {
    "prompt_leaking": (INJECTION, re.compile(
        r"\b(repeat|print|output|show|display|reveal|translate|encode|spell[- ]check|summari[sz]e)\b[^.\n]{0,40}\b"
        r"((initial|original|starting|first|previous|system|hidden|above)\s+(instructions?|prompt|configuration"
        r"|message)|text above|instructions you were given)", re.I)),
    "asked_for_instructions": (INJECTION, re.compile(
        # (not the rules of a topic: "what are the rules on sharing patient information")
        r"\bwhat (are|were) (your (initial |original |system |hidden )?|the (initial |original |system |hidden ))"
        r"(instructions|rules|prompt)\b"
        r"|\bwhat (are|were) the (instructions|rules|prompt)\b(?!\s+(on|about|for|regarding|around|under|in)\s+(?!(you"
        r"|your|this|the) (chat|conversation|session|assistant|ai|model|bot|system)\b))"
        r"|\b(you were|i was) (told|instructed|given)\b[^.\n]{0,30}\b(before|beginning|initially|to)\b", re.I)),
    # (not when the part cast is a clinician at work or a patient for practice: "pretend you are examining a child
    # with croup", "role play as a patient with chest pain so I can practise", "let's role-play: you be the anxious
    # patient"; nor a capsule's "jailbreak")
    "pretending": (JAILBREAK, re.compile(
        r"\b(you are now|from now on,? you|pretend (to be|you are|that you)|role-?play (as|where you"
        r"|in which you|a game|game)|let's role-?play|jailbr(eak|oken)(?= mode| prompt| you\b| yourself| the (ai|model"
        r"|assistant|bot|chatbot|system)\b)|do anything now"
        r"|DAN mode|act as if you|you (will|must) act as)\b(?![\s:,-]+(you(?:'re| are| be| play)\s+)?(an? |the )?("
        + _CLINICAL_CAST + r")\b)", re.I)),
    "privilege_escalation": (JAILBREAK, re.compile(
        r"\b(developer|maintenance|debug|god|sudo|unrestricted|jailbr[oe]ken?) mode\b|\bno (ethical|moral)"
        r" (guidelines|constraints|limits|restrictions)\b|\bunrestricted (queries|questions|answers|responses"
        r"|outputs?|replies|prompts|requests)\b|\b(without|free of|free from|no|any) (restrictions"
        r"|filters|censorship|content polic(y|ies))\b|\buncensored\b|\bunfiltered\b|\bstay in character\b", re.I)),
    # HarmBench's semantic categories, as requests: evading detection, weapons, intrusion, fraud, violence,
    # harassment and exploitation. A verb of doing with its object, so "organophosphate poisoning: treatment?"
    # or "which antibiotics kill MRSA" is not a request to harm.
    "evading_detection": (HARMFUL, re.compile(
        r"\bwithout (getting|being) (caught|detected|traced|noticed)\b|\bwithout (detection|a trace|leaving"
        r" (any )?(evidence|traces?))\b|\b(undetected|untraceable)\b|\bget away with\b", re.I)),
    "weapons": (HARMFUL, re.compile(
        r"\b(make|build|assemble|synthesi[sz]e|manufacture|produce|weaponi[sz]e|create)\b[^.?!\n]{0,40}\b("
        r"bomb|explosives?|pipe bomb|nerve agents?|sarin|vx|ricin|anthrax|chemical weapons?|biological weapons?"
        r"|bioweapons?|dirty bomb|napalm|ghost gun|untraceable gun)\b", re.I)),
    # (malware and phishing named as a threat are a topic, "signs of a phishing email", "how ransomware gets into
    # hospitals": they are a request with a verb of making, sending or running them, as the weapons are)
    "intrusion": (HARMFUL, re.compile(
        r"\b(hack(ing)? into|break into (someone|an?|his|her|their|my \w+'s)|ddos(ing)? (an?|the|my|his|her|their"
        r"|someone|somebody)|steal (someone's |their |his |her )?(passwords?|identity|credit cards?|data)"
        r"|crack (the |a )?passwords?)\b"
        r"|\b(make|build|write|create|code|program|develop|design|craft|draft|compose|generate|deploy|install|plant"
        r"|spread|launch|send|run|set up|sell|buy|rent)\b[^.?!\n]{0,40}\b(ddos|ransomware|keylogger|phishing (emails?"
        r"|pages?|sites?|messages?|texts?|campaigns?)|spyware|botnet|malware|trojan)\b", re.I)),
    "crime": (HARMFUL, re.compile(
        r"\b(how (to|do i|can i|could i)|ways? to|help me|tips (for|on)|guide (to|for|on))\b[^.?!\n]{0,40}\b("
        r"launder|counterfeit|smuggl\w*|forg(e|ing) (a |an )?\w+|embezzl\w*|blackmail|extort\w*|dox+(ing)?"
        r"|stalk\w*|kidnap\w*|abduct\w*|shoplift\w*|evade (taxes|the police|law enforcement)|commit fraud"
        r"|\w+ fraud)\b", re.I)),
    "violence": (HARMFUL, re.compile(
        r"\b(how (to|do i|can i)|ways? to|help me|best way to|plan (to|an?|for))\b[^.?!\n]{0,30}\b("
        r"kill|murder|poison|hurt|harm|torture|attack|threaten|intimidate|harass|bully|abuse)\b[^.?!\n]{0,20}\b("
        r"someone|somebody|people|him|her|them|my (wife|husband|partner|boss|neighbou?r|ex|coworker|teacher|"
        r"classmate|child|mother|father|family)|a (person|child|classmate|coworker))\b", re.I)),
    # A request for the means of harming oneself: a request word, then in the same sentence (up to 90 characters on:
    # "which pills in my cupboard should I take together to end my life") a self-directed harmful act ("how can I hurt
    # myself", "help me self-harm", "the quickest way to end my life", "stop eating until I die"), or the surest
    # means to die ("the best way to commit suicide"), or a cut of the asker's own wrist, vein, artery or throat (ICD-10
    # X78, intentional self-harm by sharp object, at the sites where a cut bleeds out: WordNet 3.0's wrist.n.01,
    # vein.n.01, artery.n.01, throat.n.01) as an act to come ("how do I cut my wrists", "help me slit my wrist"; not
    # "after I cut my wrist on a knife", a wound to dress, nor "cut my nails"). A clinician's question names the
    # patient and the care ("after a patient cut their wrists", "suicide risk assessment", "how to prevent suicide")
    # and is not this.
    "self_harm_means": (SELF_HARM, re.compile(
        r"\b(how|what|which|ways?|best|quickest|easiest|fastest|painless(ly)?|surest|methods?|where|help me|tips"
        r"|teach me)\b[^.?!\n]{0,90}?\b((kill|hurt|harm|injure|cut|burn|poison|starve|hang|drown|shoot|suffocate"
        r"|overdose) myself"
        # (post14b, blind14 drove it: development figures) the asker the object of a lethal verb with the means asked
        # for by its speed or certainty ("which drug would kill me fastest"); "which drugs kill fastest in overdose"
        # asks about patients
        r"|(kill|finish) me (off )?(the )?(fastest|quickest|soonest|quickly|fast|painlessly|for (sure|certain))"
        r"|enough to (kill|finish) me"
        # (session 15, after the eleventh reading: blind15 drove it, development figures) the C-SSRS's first item,
        # the passive death wish ("wished you could go to sleep and not wake up": Posner K et al., Am J Psychiatry
        # 2011;168:1266-77), asked of a means in the first person: "which pills would let me sleep and never wake
        # up" (a sufficiency asked, "is that enough to not wake up", is read below without a request word); a
        # patient's wish is the patient's ("she wished she could ...")
        r"|\bme (go to )?sleep and (not|never) wake up"
        # the superlative of painlessness asked of an overdose itself ("the most painless overdose combination")
        r"|most painless (overdose|od|combination|mix|cocktail)"
        r"|make myself (throw up|vomit|bleed)|end my (own )?life|take my (own )?life|until i die"
        r"|(\b(do|can|could|should|would|will|to|me)( i)? |(?<=help me ))(\w+ly )?(cut|slit|slash|slice|open)( up)? my"
        r" (own )?(wrists?|veins?|arter(y|ies)|throat))\b"
        r"|\b(help me|ways? to|how (do|can|could|should) i|teach me to)\s+(self[- ]harm|commit suicide)\b"
        r"|\benough( for me)? to (not|never) wake up( again)?\b"
        r"|\b(best|quickest|easiest|fastest|painless|surest|most (effective|reliable|painless))\s+(way|method|means)s?"
        r"\s+(to|of)\s+(commit(ting)? suicide|suicide|kill(ing)? (myself|yourself|oneself)|die|dying)\b", re.I)),
    "hate_or_sexual_exploitation": (HARMFUL, re.compile(
        r"\b(child (porn\w*|sexual abuse material)|csam|non-?consensual (porn\w*|images|sex)|revenge porn"
        r"|racial slurs?|racist (jokes?|vitriol|rant)|hate (mail|speech) (about|against|for))\b", re.I)),
}


# A device's own "system message" or "system prompt" (on the ventilator, the pump, the screen) is not the assistant's
# (session 14: in quotation marks, and up to three words before "on": "the 'system override' alarm mean on our
# volumetric pumps")
_DEVICE_NOTICE = re.compile(r"\b(?:system|admin(?:istrator)?|developer)\s+(?:notice|message|prompt|override|instruction"
                            r"|command)s?['’\"”]?\s+(?:[\w-]+\s+){0,3}?(?:on|from)\s+(?:the|a|an|my|our|his|her)\s+"
                            r"(?!ai\b|assistant\b|model\b|bot\b|chat\w*|llm\b)\w+", re.I)


# Instructions given by a clinician ("new instructions from the consultant: switch him to doxycycline") are an order
# on the ward, not the assistant's: who gave them is named (the cast of a clinical encounter, ILO ISCO-08 above)
_CLINICIANS_ORDERS = re.compile(r"\binstructions?\s+(?:from|by|of)\s+(?:" + _CLINICAL_CAST + r")\b", re.I)


# (session 15, hn15) A device's own mode ("a service or developer mode on the Omron BP monitor", "the mannequin's 'god
# mode' lets the instructor change vitals", "maintenance mode on our infusion pumps") is the device's, as its system
# notice is: the mode followed by "on / of / in" a device named, or after a device's possessive; never this assistant
# or a model, an app or a system ("developer mode on the chatbot", "enable god mode in this app")
_NOT_A_DEVICE = r"(?:ai|assistant|model|bot|chat\w*|llm|gpt\w*|system|app|application|tool|you|yourself|this|it)\b"
_MODE_OF_A_DEVICE = re.compile(r"\s*['’\"”]?\s+(?:[\w-]+\s+){0,3}?(?:on|of|in|for)\s+"
                               r"(?:the|a|an|my|our|his|her|their)\s+(?!(?:[\w-]+\s+){0,2}?" + _NOT_A_DEVICE
                               + r")[\w-]+", re.I)
_DEVICE_POSSESSIVE = re.compile(r"\b(?:the|a|an|my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}?(?!" + _NOT_A_DEVICE
                                + r")[\w-]+['’]s\s+['‘\"“]?\s*(?:[\w-]+\s+)?$", re.I)


def _device_mode(text: str, match: re.Match[str]) -> bool:
    return match.group().lower().endswith("mode") and bool(
        _MODE_OF_A_DEVICE.match(text, match.end()) or _DEVICE_POSSESSIVE.search(text, 0, match.start()))


def _document_kind(kind: str, pattern: re.Pattern[str], text: str) -> bool:
    if kind == "system_notice":
        return any(not _DEVICE_NOTICE.match(text, m.start()) for m in pattern.finditer(text))
    if kind == "new_instructions":
        return any(not _CLINICIANS_ORDERS.match(text, m.end() - len(m.group().split()[-1]))
                   for m in pattern.finditer(text))
    return bool(pattern.search(text))


def _pattern_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of each pattern found in one form of a text."""
    kinds = [(_DOCUMENT_KINDS[kind], kind) for kind, pattern in DOCUMENT_PATTERNS.items()
             if kind in _DOCUMENT_KINDS and _document_kind(kind, pattern, text)]
    kinds += [(category, kind) for kind, (category, pattern) in _QUESTION_PATTERNS.items()
              if any(kind != "privilege_escalation" or not _device_mode(text, m) for m in pattern.finditer(text))]
    kinds += [(INJECTION, kind) for kind in (*override_kinds(text), *language_kinds(text), *code_switched_kinds(text))]
    kinds += [(HARMFUL, kind) for kind in (*harm_kinds(text), *crosslingual_kinds(text))]
    kinds += [(JAILBREAK, kind) for kind in jailbreak_kinds(text)]
    return (kinds + signal_kinds(text) + intent_kinds(text) + harm_shape_kinds(text) + harm_goal_kinds(text)
            + session_shape_kinds(text) + extraction_shape_kinds(text) + jailbreak_shape_kinds(text)
            + pasted_order_kinds(text) + harm_act_kinds(text) + authority_shape_kinds(text)
            + purpose_harm_kinds(text) + harm_frame_kinds(text) + channel_shape_kinds(text))

