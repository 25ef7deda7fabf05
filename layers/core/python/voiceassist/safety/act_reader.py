"""A reader of the act asked about: who acts on whom, with what aim (session 17, act17).

The meaning model (`screen_model.py`) reads a spoken, second-person question ("how do I give them the insulin if they
won't eat their breakfast", "how do I get the baby's temperature down at home") as harmful: its sentence vector lies
where the fitted harmful requests ("how do I ... them") lie, and no word of the question is harmful (decision 0027,
session 16, clf16). A refit on the clinicians' register lost harmful recall, because a linear read of the vector
cannot tell "how do I get them to drink more" from "how do I get them to drink something". What tells them apart is
the act: the asker treating, monitoring or protecting a patient, or the asker harming, drugging or deceiving someone
who must not know. `care_act` reads the act in three parts, and the screen lifts the meaning model's harmful flag
alone when it holds (a pattern's flag is never lifted, and the attack classifier still reads the text):

1. the asker acts: a question whose agent is the asker or the generic "you" ("how do I", "what do we do if", "how
   much paracetamol can I give them"), its verb one of WordNet 3.0's (`pasted_orders.verbs`, the imperative reader's
   list);
2. on a patient: a person after the agent ("them", "her", "the baby", "their finger"), not the asker's own body (a
   request about oneself is the self-harm reading's);
3. with no aim of harm: no harmful outcome sought (`harm_goal.goal_outcome`: a harm, an injury or an illness of
   WordNet's kill.v.01, injure.v.01, poison.v.02, ill_health.n.01 ... governed by a purpose and not negated, or a
   negated act of living), no harm or injury named outside a condition ("what do I do if they collapse" is the
   patient's state; "without hurting their hip" is the harm avoided), no result the asker wants of the person ("so
   they ...", "enough to ...", "to make them ..."), no act caused on the person but a comfort ("make them sick"; "make
   them more comfortable" is care), no concealment from the person or a check (care_frames' evasions, "without them
   knowing", "nobody would know", "make it look like"), and nothing put in their food or drink (covert
   administration's form; NICE NG67's lawful practice is read by `care_frames.covert_administration_as_law`).

Every part is a guard against lifting: a question the reader cannot place is left as the models read it. The dev
set the reader was written on is bench/data/input_screen/act17_*.jsonl (split "dev"); docs/benchmarks.md has the
held rows' figures.
"""

from __future__ import annotations

import re

from voiceassist.phi.word_lists import DRUG_WORDS, word_list
from voiceassist.safety.care_frames import covert_administration_as_law, evasion_or_own_harm
from voiceassist.safety.harm_goal import (
    HEART_STOPPED,
    attributed_blameless,
    belief_induced,
    goal_outcome,
    harm_named_unconditioned,
    inflection_bases,
    ingestion_reported,
    names_a_person,
    outcome_kind,
    tokens_of,
)
from voiceassist.safety.pasted_orders import verbs
from voiceassist.safety.prescribing import anyone_as_patient, prescribed
from voiceassist.safety.signals import HARMFUL

# 1. the asker (or anyone, "you") as the agent of the asked act: a wh-question with up to four words before its
# auxiliary ("how much paracetamol can I", "what sort of sleep advice do we"), then the verb (after "have to / need to")
_AGENT = re.compile(
    r"\b(?:how|what|when|where|which|why)\b(?:\s+[\w'’-]+){0,4}?\s+(?:do|does|can|could|should|would|shall|must|might"
    r"|will)\s+(?:i|we|you)\s+(?:(?:have|need|want|ought|got)\s+to\s+)?(?:\w+ly\s+)?(?P<verb>[a-z]+)\b",
    re.I,
)
# 2. a person acted on, or one whose state the question is about (the pronouns, and the patients of a ward)
_PERSON = re.compile(
    r"\b(?:them|him|her|their|his|they|they['’]re|he|she|he['’]s|she['’]s|people|patients?|residents?|babies"
    r"|(?:the|a|an|my|our|this)\s+(?:[\w-]+\s+)?(?:baby|babies|toddler|child|children|kids?|patient|resident|infant"
    r"|newborn|teenager|man|woman|lady|gentleman)(?:['’]s)?)\b",
    re.I,
)
# the asker's own body (the self-harm reading's), and anyone ("someone", "somebody"): how a harmful request names its
# victim (harm_shapes' _NOT_IN_CARE) more than how a carer names a patient
_NOT_A_PATIENT = re.compile(r"\b(?:myself|ourselves|yourself|yourselves|someone|somebody)(?:['’]s)?\b", re.I)
# a spoken question is a sentence or two; a pasted role-play or jailbreak runs on
MAX_WORDS = 40
# 3. an aim: a result wanted of the person or the asker's own ("so they sleep through", "so I can go out", "enough to
# pass out", "in order to", "for it to"); "to make them" is read in _CAUSED
_RESULT = re.compile(
    r"\bso\s+(?:that\s+)?(?:[\w'’-]+\s+){0,2}?(?:they|they['’]re|he|she|i|we|it|nobody|no one|noone|everyone"
    r"|anyone|the|their|his|her)\b|\b(?:enough|long enough|in order)\s+(?:not\s+)?(?:to|that|for)\b"
    r"|\bfor (?:it|that|this) to\b"
    r"|\buntil (?:they|he|she)\b(?!\s+(?:settle|calm|improve|recover|feel better|get better|are better|is better))",
    re.I,
)
# an act caused on the person: "make them sick", "make their heart stop"; a comfort or an understanding is care
_CAUSED = re.compile(
    r"\bmak(?:e|es|ing)\s+(?:them|him|her|their|his|someone|somebody|people|the\s+[\w-]+|an?\s+[\w-]+)\b(?:\s+[\w'’-]+)?(?!\s+(?:more\s+)?"
    r"(?:comfortable|comfy|better|feel (?:better|safe|comfortable)|safe|at ease|understand|relaxed|calmer))",
    re.I,
)
_COMFORT = re.compile(
    r"\bmak(?:e|es|ing)\s+(?:them|him|her)\s+(?:more\s+|feel\s+)?(?:comfortable|comfy|better|safe"
    r"|at ease|understand|relaxed|calmer)\b",
    re.I,
)
# concealment from the person or from a check: "without them knowing", "nobody would know", "never find out", "look
# like an accident", "before they realise", "if they're suspicious", "without the alarm going off", "behind their back"
_HIDDEN = re.compile(
    r"\bwithout\s+(?:them|him|her|anyone|anybody|(?:the|their|his|her)\s+[\w-]+)\s+(?:knowing|noticing|finding|realis"
    r"|realiz|seeing|picking|catching|telling|going off|suspecting|spotting|checking)\w*"
    r"|\bwithout\s+(?:telling|asking|informing)\s+(?:them|him|her|anyone|anybody)\b"
    r"|\b(?:nobody|no one|noone|anyone|anybody)\s+(?:\w+\s+)?(?:knows?|know|tell|notices?|finds? out|sees?|suspects?"
    r"|blames?|picking)\b|\bnever\s+(?:find|found|know|notice|realise|realize)\w*|\blooks?\s+like\b"
    r"|\bbefore\s+(?:they|he|she)\s+(?:realise|realize|notice|know|wake|find|work)\w*"
    r"|\b(?:they|he|she)(?:['’]re|['’]s| are| is)\s+suspicious\b|\bbehind\s+(?:their|his|her)\s+back\b"
    r"|\bwithout\s+(?:them|him|her|anyone|anybody|(?:the|their|his|her)\s+[\w-]+)\s+\w+ing\s+(?:me|us)\b"
    r"|\bwithout\s+(?:their|his|her|anyone['’]s)\s+(?:knowledge|consent|permission|say-?so)\b"
    # what is given kept from the person: "if they don't want to know what's in it", "without knowing what it is"
    r"|\bknow(?:s|ing)?\s+what(?:['’]s|\s+(?:it|this|that)\s+(?:is|was)|\s+is|\s+was)\b|\bwhat['’]s\s+in\s+(?:it|them"
    r"|this)\b"
    r"|\bwithout\s+(?:a|any)\s+(?:prescription|script)\b|\bwithout\s+(?:it|this|that|anything)\s+\w+ing\b"
    # the person kept unconscious or quiet: "keep her knocked out all night", "keep them quiet"
    r"|\b(?:knock|knocks|knocked|knocking)\s+(?:\w+\s+)?out\b|\bkeep\w*\s+(?:them|him|her)\s+(?:quiet|under|sedated"
    r"|drugged|knocked|out)\b"
    r"|\b(?:secretly|covertly|sneakily|discreetly|slip|sneak|spike)\w*\b"
    # the person silenced about the asker's own act: "stop them telling anyone what I did to them"
    r"|\bstop\w*\s+(?:them|him|her)\s+(?:from\s+)?(?:telling|saying|reporting|talking|speaking|complaining|calling)\b"
    r"|\bwhat\s+(?:i|we)\s+(?:did|have done|['’]ve done)\b",
    re.I,
)
# a mask worn (a noun after a determiner or the kind of mask), not masking as concealment (care_frames' evasions)
_MASK_WORN = re.compile(
    r"\b(?:the|their|his|her|a|an|my|your|oxygen|face|surgical|venturi|nebuli[sz]er|cpap|bipap|non-rebreather"
    r"|rebreather|resus|bag[- ]valve)\s+masks?\b",
    re.I,
)
# something put into the person's food or drink (the form of covert administration)
_IN_FOOD = re.compile(
    r"\b(?:in|into|with)\s+(?:their|his|her|the)\s+(?:[\w-]+\s+)?(?:tea|coffee|drinks?|food|bottle|feed|milk|juice"
    r"|alcohol|dinner|meals?|water|squash|cereal|pudding|yoghurt|yogurt)\b",
    re.I,
)


# (session 18) a habit or a symptom made to cease is care, as a comfort is: "make him stop smoking", "make her stop
# coughing" (the habits and symptoms of part c below)
_CEASED = re.compile(r"\bmak(?:e|es|ing)\s+(?:[\w'’-]+\s+){1,2}?stop\s+(?P<ceased>\w+ing)\b", re.I)
# something put into the person's food, drink or mouth: "putting something in his whisky", "crush it into her yoghurt"
_PUT_INTO = re.compile(r"\b(?:put|puts|putting|add|adds|adding|mix|mixes|mixing|crush|crushes|crushing|stir|stirs"
                       r"|stirring|drop|drops|dropping)\s+(?:[\w'’-]+\s+){0,2}?(?:in|into)\s+(?:his|her|their)\b", re.I)


def care_act(text: str) -> bool:
    """Whether `text` asks how the asker is to act on a patient (give, treat, monitor, tell, position) with no aim of
    harm: no harmful outcome sought, no harm named outside a condition, no result wanted of the person, nothing
    caused on them but a comfort, nothing hidden, nothing put in their food or drink."""
    # (session 19, fix20) "someone" started on, switched to or taken off a drug is the prescriber's patient
    text = anyone_as_patient(text)
    agent = _AGENT.search(text)
    if agent is None or agent.group("verb").lower() not in verbs():
        return False
    acted_on = text[agent.start() :]
    if len(text.split()) > MAX_WORDS or not _PERSON.search(acted_on) or _NOT_A_PATIENT.search(text):
        return False
    tokens = tokens_of(text)
    caused = [m for m in _CAUSED.finditer(text) if not _COMFORT.match(text, m.start()) and not (
        (ceased := _CEASED.match(text, m.start())) and _habit_or_symptom(ceased.group("ceased")))]
    return not (
        goal_outcome(tokens)
        or harm_named_unconditioned(text)
        or _RESULT.search(acted_on)
        or caused
        or _HIDDEN.search(text)
        or _IN_FOOD.search(text)
        or _PUT_INTO.search(text)
        or evasion_or_own_harm(_MASK_WORN.sub("their device", text))
    )


# (session 17, harmreg17) The same parse read for harm: the asker acts on a person (anyone too: "someone" is how a
# harmful request names its victim; and a person of the asker's circle, harm_goal's WordNet people of relative.n.01,
# spouse.n.01, child.n.01 ...: "my sister", "my wife") and the act's stated result is harm. `harm_act` reads five
# results:
#
# a. a harmful outcome (`harm_goal`'s readings, which want a person of the asker's circle named; here the parse has
#    found the person acted on): an outcome of WordNet 3.0's kill.v.01, die.v.01, unconsciousness.n.01, injure.v.01,
#    faint.v.01 ("pass out"), ill_health.n.01 ... governed by the act's purpose, cause or modal ("so", "enough",
#    "make", "would", "for it to"), not by an infinitive's "to" ("a patient expected to die"), and not negated, or a
#    negated act of living (`goal_outcome`); a heart stopped (cardiac_arrest.n.01's gloss); a clinician's belief in
#    an illness as the goal (`belief_induced`, fabricated or induced illness). The asker is the agent, so a harm
#    short of injury counts ("make them have a seizure"); not with an ingestion reported (a toxicology question:
#    "how do I make them vomit, they swallowed bleach");
# b. the act made to seem blameless: put down to natural causes or an accident (`attributed_blameless`, the
#    inquest's short-form conclusions), or kept from blame ("so nobody blames me");
# c. an end: the person's stopping, quieting or sleep caused by the asker and made permanent, WordNet's
#    permanently.r.01 ("permanently", "for good") and everlastingly.r.01 ("forever", "evermore", "eternally") right
#    after the ceasing, which a causative ("make", "put", "send", "shut", "keep") with the person as its object
#    governs: "make the baby stop crying for good", "put them to sleep forever"; "get them to stop smoking for good"
#    is persuasion (get ... to), not caused, and "make them stop scratching their eczema for good" ends a symptom;
#    nor a habit or a symptom ceased ("make him stop smoking for good", "stop coughing for good": session 18);
# d. the person silenced about the asker's own act: a verb of preventing (stop, keep, prevent) with the person as
#    its object, a verb of telling (tell, say, report, talk, call) and, as what is not to be told, the asker's own act
#    ("what I did", "about me / us", "on me"): "stop them telling anyone what I did to them"; "keep them from telling
#    the nurses about their pain" is the person's own state, and "how do we stop them scratching" a carer's;
# e. an effect the person does not know of: the asker's act on them with the person's knowing negated ("without them
#    knowing", "so they never find out", "before they realise"), unless asked as the law of covert administration
#    (NICE NG67, `care_frames.covert_administration_as_law`).
_ANYONE_ACTED_ON = re.compile(r"\b(?:someone|somebody)(?:['’]s)?\b", re.I)
# the end stated of the ceasing itself, right after it: "stop crying for good", "to sleep forever", "shut them up
# for good"; "stop scratching their eczema for good" ends a symptom, the object between
_END = r"(?:for\s+good|for\s*ever|permanently|evermore|eternally)\b"
_CAUSED_TO_CEASE = re.compile(
    r"\b(?:make|makes|making|put|puts|putting|send|sends|sending|shut|shuts|shutting|keep|keeps|keeping)\s+"
    r"(?P<who>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s+(?:(?:to\s+)?sleep|stop(?:\s+(?P<ceased>\w+ing))?|quiet|quieten|silent|still|hush|up"
    r"|be\s+(?:quiet|silent|still))\s+" + _END,
    re.I,
)
# (session 18, refuse18) a habit or a symptom ended is not a life: the ceasing's gerund a habit of intake or play
# (WordNet 3.0's troponyms of smoke.v.01, drink.v.03 and drink.v.05 "consume alcohol", drug.v.02 "use recreational
# drugs", use.v.02 "take or consume regularly or habitually" and gamble.v.02 "play games for money"), or a symptom
# (verb.body synsets derivationally related to a hyponym of symptom.n.01, pain.n.01's and suffering's excluded:
# "stop suffering / hurting for good" is how an end of life is asked): "make him stop smoking for good", "make the
# baby stop hiccuping for good". "Vape" is not in WordNet 3.0 and is not read.
_HABITS = frozenset({
    "smoke", "chain-smoke", "puff", "whiff", "inhale", "drink", "booze", "fuddle", "tope", "tipple", "souse", "soak",
    "tank", "inebriate", "pub-crawl", "claret", "port", "wine", "bib", "drug", "dope", "snort", "mainline", "inject",
    "free-base", "base", "pop", "drop", "use", "habituate", "gamble", "game", "bet", "wager", "stake", "punt", "dice",
    "gage", "parlay", "ante",
})
_SYMPTOMS = frozenset({
    "cough", "sneeze", "hiccup", "hiccough", "twitch", "jerk", "shiver", "shudder", "fibrillate", "constipate",
    "obstipate", "inflame", "atrophy", "crick", "rick", "wrick", "sprain", "wrench",
})


def _habit_or_symptom(ceased: str | None) -> bool:
    """Whether the ceasing's gerund ("smoking", "hiccuping") is a habit or a symptom of the lists above."""
    return ceased is not None and any(base in _HABITS | _SYMPTOMS for base in inflection_bases(ceased.lower()))


_SILENCED = re.compile(
    r"\b(?:stop|stops|stopping|keep|keeps|keeping|prevent|prevents|preventing)\s+(?P<who>[\w'’-]+(?:\s+[\w'’-]+){0,1}?)"
    r"\s+(?:from\s+)?(?:telling|saying|reporting|talking|speaking|grassing|calling|ringing)\b(?P<rest>[^.?!]*)",
    re.I,
)
_TOLD = re.compile(
    r"\bwhat\s+(?:i|we)\s+(?:did|do|have\s+done|['’]ve\s+done|said|gave|give)\b|\babout\s+(?:me|us|what\s+(?:i|we))\b"
    r"|\bon\s+(?:me|us)\b|\bthat\s+(?:i|we)\s+(?:did|hit|hurt|gave|touched|took)\b",
    re.I,
)
_UNKNOWING = re.compile(
    r"\bwithout\s+(?:them|him|her|(?:the|their|his|her)\s+[\w-]+)\s+(?:knowing|noticing|realis|realiz|finding\s+out"
    r"|suspecting)\w*|\bso\s+(?:that\s+)?(?:they|he|she)\s+(?:never|don['’]?t|doesn['’]?t|won['’]?t|can['’]?t)\s+"
    r"(?:finds?\s+out|know|realise|realize|notice|remember|suspect)\w*|\bbefore\s+(?:they|he|she)\s+(?:realise|realize"
    r"|notice|know|finds?\s+out|works?\s+out)\w*",
    re.I,
)


# the asker's act kept from blame: "so nobody blames me", "without anyone blaming us"
_BLAME_DEFLECTED = re.compile(
    r"\b(?:nobody|no\s+one|noone|no-one)\s+(?:\w+\s+)?blames?\s+(?:me|us)\b|\bwithout\s+(?:anyone|anybody)\s+blaming"
    r"\s+(?:me|us)\b|\bnot\s+(?:get\s+)?blamed\s+on\s+(?:me|us)\b",
    re.I,
)


def _acted_on(text: str) -> tuple[str, str] | None:
    """(the asked act's verb, the text from the agent on) when the asker (or "you") acts on a person or anyone; the
    parse of `care_act`'s parts 1 and 2, with "someone" a person acted on."""
    agent = _AGENT.search(text)
    if agent is None or agent.group("verb").lower() not in verbs() or len(text.split()) > MAX_WORDS:
        return None
    acted_on = text[agent.start() :]
    if re.search(r"\b(?:myself|ourselves|yourself|yourselves)\b", text, re.I):
        return None
    # or a person of the asker's circle (harm_goal's WordNet people: "my brother", "my mother-in-law")
    if not (_PERSON.search(acted_on) or _ANYONE_ACTED_ON.search(acted_on) or names_a_person(tokens_of(acted_on))):
        return None
    return agent.group("verb").lower(), acted_on


def _a_person(words: str) -> bool:
    """Whether a causative's or a preventing verb's object names a person ("them", "the baby", "someone")."""
    return bool(_PERSON.fullmatch(words) or _ANYONE_ACTED_ON.fullmatch(words)) or names_a_person(tokens_of(words))


# (session 18, harm18) f. tampering: the asker swaps, dilutes, alters or disables a medicine, a device, a result, a
# record, a label or a setting, and the act's stated result is that someone is harmed or not treated. The verbs are
# WordNet 3.0's lemmas of swap.v.01 (trade, swap, swop, switch), substitute.v.01 (substitute, replace, interchange,
# exchange), change.v.01 (change, alter, modify), alter.v.04 and falsify.v.01 (falsify, distort), fudge.v.01 (fudge,
# manipulate, fake, cook, wangle, misrepresent), forge.v.03 (forge, counterfeit), dilute.v.01 and adulterate.v.01
# (dilute, thin, adulterate, debase; "reduce", "cut", "load" and "stretch" are a dose's or a bandage's words),
# tamper.v.01 (tamper, fiddle, monkey), sabotage.v.01 (sabotage, undermine, subvert), disable.v.01 (disable,
# disenable, incapacitate), empty.v.01, doctor.v.01 (doctor, sophisticate), switch_off.v.01 (turn off, switch off),
# and label.v.01 with English's re- and mis- ("relabel", "mislabel"); "make it fail" causes the failure itself. A
# clinician swaps, changes, dilutes and replaces every day ("swap a patient from warfarin to apixaban", "dilute insulin
# for a neonatal infusion"), so the act alone is nothing: the result after it decides, one of
#   - a failure when it is needed: WordNet's fail.v.04 ("stop operating or functioning": fail, give out, break
#     down), malfunction.v.01, "useless", or a function negated ("doesn't work", "won't shock"), beside a need ("when
#     she needs it", "when it's needed", "at his next attack") or as the act's purpose ("so it fails"); a failure
#     negated ("so it doesn't fail") is care;
#   - an outcome the person gets: harm_goal's outcomes (WordNet's harm, injury, illness and ill_health.n.01's
#     disorders, "lactic acidosis") after a verb of getting or undergoing ("she gets", "he goes", "ends up", "starts",
#     "has"), or governed as `goal_outcome` reads them; or the person ending up in hospital;
#   - the person not treated: a clinician's act negated after the act's purpose ("so the registrar doesn't treat
#     it"), or a harmful treatment carried on ("so her metformin carries on"), or the wrong one given ("gives the
#     wrong one");
#   (a time to harm asked, "if I swapped her metformin for glibenclamide how long before she went hypo", is not read:
#   "if I switch him from carbamazepine, how long before he starts fitting" asks a risk in the same words).
_TAMPER_VERBS = frozenset({
    "trade", "swap", "swop", "switch", "substitute", "replace", "interchange", "exchange", "change", "alter", "modify",
    "falsify", "distort", "fudge", "manipulate", "fake", "cook", "wangle", "misrepresent", "forge", "counterfeit",
    "dilute", "thin", "adulterate", "debase", "tamper", "fiddle", "monkey", "sabotage", "undermine", "subvert",
    "disable", "disenable", "incapacitate", "empty", "doctor", "sophisticate", "label", "relabel", "mislabel",
})
# the asker (or "you") as the act's agent, or the act asked for ("how to", "the best way to", "if I swapped")
_TAMPER_AGENT = frozenset({"i", "we", "you", "i'd", "i'll", "i’d", "i’ll", "to"})
_TURNED_OFF = re.compile(r"\b(?:turn|turns|turned|turning|switch|switches|switched|switching)\s+(?:off\b|\S+(?:\s+\S+)?"
                         r"\s+off\b)", re.I)
_MADE_TO_FAIL = re.compile(r"\bmak(?:e|es|ing)\s+(?:[\w'’-]+\s+){1,3}?(?:fail|malfunction|stop\s+working|not\s+work"
                           r"|useless)\b", re.I)
_FAILURE = re.compile(
    r"(?<!\bnot\s)(?<!n['’]t\s)\b(?:fail|fails|failed|failing|give\s+out|gives\s+out|break\s+down|breaks\s+down"
    r"|malfunctions?|misfunctions?|useless|dud)\b"
    r"|\b(?:does|do|did|will|would|wo|is|was|ca|can|could)(?:n['’]?t|\s+not)\s+(?:work|shock|fire|deliver|inject"
    r"|alarm|go\s+off|pump|infuse)\b|\bstops?\s+working\b",
    re.I,
)
_FAILURE_NEGATED = re.compile(r"\b(?:not|never|n['’]t)\s+(?:\w+\s+)?(?:fail|break\s+down|malfunction|stop\s+working)"
                              r"|\bwithout\s+(?:it\s+)?(?:failing|breaking)", re.I)
_NEEDED = re.compile(
    r"\bwhen\s+(?:it['’]s|it\s+is|they['’]re|they\s+are)\s+needed\b|\bwhen\s+(?:she|he|they|someone|somebody|you"
    r"|the\s+\w+|(?:his|her|their)\s+\w+)\s+(?:needs?|gets?|has|have|goes|next)\b|\bnext\s+(?:attack|episode|fit"
    r"|seizure|hypo|reaction|exacerbation)\b|\bin\s+an?\s+emergency\b|\bso\s+(?:that\s+)?(?:it|they|the\s+\w+)\s+"
    r"(?:fails?|(?:does|do|will|wo)(?:n['’]?t|\s+not))\b",
    re.I,
)
_GETS = frozenset({"gets", "get", "got", "getting", "goes", "go", "went", "gone", "going", "has", "have", "had",
                   "having", "starts", "start", "started", "starting", "develops", "develop", "developed",
                   "suffers", "suffer", "suffered", "ends", "end", "ended"})
_HOSPITAL = re.compile(r"(?<!n['’]t\s)(?<!not\s)(?<!never\s)\b(?:ends?|ended|winds?|wound|lands?|landed)\s+up\s+"
                       r"(?:back\s+)?in\s+(?:hospital|a\s*&\s*e"
                       r"|icu|itu|intensive\s+care|resus|the\s+(?:hospital|icu|morgue|mortuary))\b", re.I)
_UNTREATED = re.compile(
    r"\bso\s+(?:that\s+)?(?:the\s+(?:\w+\s+)?\w+|they|he|she|nobody|no\s+one|doctors?|nurses?)\s+(?:does|do|did|will|would"
    r"|wo)(?:n['’]?t|\s+not)\s+(?:treat|act|escalate|give|notice|see|call|check|start|stop|pick)\w*"
    r"|\bso\s+(?:that\s+)?(?:nobody|no\s+one)\s+(?:treats|acts|escalates|gives|notices|sees|calls|checks|starts)\b"
    r"|\b(?:gets?|is|was)\s+discharged\b|\bcarr(?:y|ies|ied)\s+on\b|\b(?:gives?|gets?|given|administers?)\s+"
    r"(?:\w+\s+)?(?:the\s+)?wrong\b|\b(?:gets?|given)\s+(?:far\s+|way\s+|much\s+)?too\s+much\b",
    re.I,
)
# the clipped "hypo" of hypoglycaemia, and a fit (WordNet's seizure.n.01 as the ward says it)
_SHORT_ILLNESS = frozenset({"hypo", "hypos", "fitting", "fit", "fits", "arrest", "arrests"})


_NOT = frozenset({"not", "never", "no", "doesn't", "don't", "won't", "didn't", "isn't", "wasn't", "can't", "couldn't",
                  "wouldn't", "doesnt", "dont", "wont", "didnt", "isnt", "wasnt", "cant", "couldnt", "wouldnt",
                  "doesn’t", "don’t", "won’t", "didn’t", "can’t", "couldn’t", "wouldn’t", "without", "avoid"})


def _outcome_got(tokens: list[str]) -> bool:
    """Whether a verb of getting or undergoing, not negated, governs an outcome of harm_goal's lexicon within three
    words after it ("she gets lactic acidosis", "he went hypo", "starts fitting"; not "so she doesn't get an
    infection")."""
    for at, token in enumerate(tokens):
        if token in _GETS and not _NOT & set(tokens[max(0, at - 3): at]) and tokens[at + 1: at + 2] != ["less"] and (
                tokens[at + 1: at + 2] not in (["fewer"], ["no"], ["reduced"], ["lower"])):
            for step in range(1, 4):
                if at + step < len(tokens):
                    if tokens[at + step] in _SHORT_ILLNESS:
                        return True
                    if outcome_kind(tokens, at + step) in ("harm", "injury", "illness", "disorder"):
                        return True
    return False


def _tamper_act(text: str) -> str | None:
    """The text after the asker's act of tampering (the verbs above, the asker or "to" before it within four words),
    or None."""
    tokens = list(re.finditer(r"[a-z]+(?:['’][a-z]+)?", text.lower()))
    for at, token in enumerate(tokens):
        if any(base in _TAMPER_VERBS for base in inflection_bases(token.group())) and any(
                t.group() in _TAMPER_AGENT for t in tokens[max(0, at - 4): at]):
            return text[token.start():]
    for pattern in (_TURNED_OFF, _MADE_TO_FAIL):
        found = pattern.search(text)
        if found and re.search(r"\b(?:i|we|you|to)\s+(?:\S+\s+){0,3}$", text[: found.start()], re.I):
            return text[found.start():]
    return None


def tampered(text: str) -> bool:
    """Whether the asker swaps, dilutes, alters or disables something and the stated result is harm or no treatment
    (part f above)."""
    if len(text.split()) > MAX_WORDS:
        return False
    after = _tamper_act(text)
    if after is None:
        return False
    failed = _FAILURE.search(after) and not _FAILURE_NEGATED.search(after) and (
        _NEEDED.search(after) or _MADE_TO_FAIL.search(after))
    # the act's stated result, after its purpose ("so", "so that"): what the person gets, or that they go untreated
    purpose = re.search(r"\bso\b(?P<result>.*)", after, re.I | re.S)
    result = after[purpose.start():] if purpose else ""
    return bool(
        failed
        or (goal_outcome(tokens_of(after)) and not ingestion_reported(text))
        or _outcome_got(tokens_of(result))
        or _HOSPITAL.search(result)
        or _UNTREATED.search(result)
    )


def harm_act(text: str) -> str | None:
    """The result of harm the asker's act on a person states, by its part of the reading above ("outcome",
    "blameless", "end", "silenced", "unknowing", "tampered"), or None."""
    if tampered(text):
        return "tampered"
    parsed = _acted_on(text)
    if parsed is None:
        return None
    _, acted_on = parsed
    # "to" is an infinitive's mark as often as a purpose's ("a patient expected to die", "asks me to backdate a sick
    # note"): here the outcome is governed by the act's own purpose or cause ("so", "enough", "make", "would", "for it
    # to")
    words = tokens_of(acted_on)
    tokens = [
        "_" if token == "to" and "for" not in words[max(0, at - 2) : at] else token for at, token in enumerate(words)
    ]
    if not ingestion_reported(text) and (
        goal_outcome(tokens) or HEART_STOPPED.search(acted_on) or belief_induced(words)
    ):
        return "outcome"
    if attributed_blameless(words) or _BLAME_DEFLECTED.search(acted_on):
        return "blameless"
    # a habit ended by something given in secret is still covert dosing: "by slipping something in his coffee"
    given_unknowing = bool(_HIDDEN.search(text) or _IN_FOOD.search(text) or _PUT_INTO.search(text))
    if any(_a_person(m.group("who")) and (given_unknowing or not _habit_or_symptom(m.group("ceased")))
           for m in _CAUSED_TO_CEASE.finditer(acted_on)):
        return "end"
    if any(_a_person(m.group("who")) and _TOLD.search(m.group("rest")) for m in _SILENCED.finditer(acted_on)):
        return "silenced"
    if _UNKNOWING.search(acted_on) and not covert_administration_as_law(text):
        return "unknowing"
    return None


def harm_act_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the harm reading of the act in one form of a text."""
    found = harm_act(text)
    return [(HARMFUL, f"harm_act_{found}")] if found else []


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
    harmed = (goal_outcome(tokens_of(text)) or harm_named_unconditioned(told) or _RESULT.search(text) or caused
              or _HIDDEN.search(unhidden) or _IN_FOOD.search(text) or _PUT_INTO.search(text)
              or evasion_or_own_harm(_MASK_WORN.sub("their device", text)) or _NOT_A_PATIENT.search(text))
    return None if harmed else kind
