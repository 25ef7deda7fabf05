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
3. with no aim of harm: no harmful outcome sought (`harm_request.goal_outcome`: a harm, an injury or an illness of
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

from voiceassist.safety.care_frames import evasion_or_own_harm
from voiceassist.safety.harm_lexicon import inflection_bases, tokens_of
from voiceassist.safety.harm_request import goal_outcome, harm_named_unconditioned
from voiceassist.safety.pasted_orders import verbs
from voiceassist.safety.prescribing import anyone_as_patient

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
# coughing" (the habits and symptoms below: part c of act_harm.py)
_CEASED = re.compile(r"\bmak(?:e|es|ing)\s+(?:[\w'’-]+\s+){1,2}?stop\s+(?P<ceased>\w+ing)\b", re.I)
# something put into the person's food, drink or mouth: "putting something in his whisky", "crush it into her yoghurt"
_PUT_INTO = re.compile(r"\b(?:put|puts|putting|add|adds|adding|mix|mixes|mixing|crush|crushes|crushing|stir|stirs"
                       r"|stirring|drop|drops|dropping)\s+(?:[\w'’-]+\s+){0,2}?(?:in|into)\s+(?:his|her|their)\b", re.I)


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


def asked_act(text: str) -> tuple[str, str] | None:
    """(the asked act's verb, the text from the agent on) when a text of MAX_WORDS words or fewer asks how the asker
    (or "you") is to act (part 1's parse; act_harm.py reads the same parse for harm)."""
    agent = _AGENT.search(text)
    if agent is None or agent.group("verb").lower() not in verbs() or len(text.split()) > MAX_WORDS:
        return None
    return agent.group("verb").lower(), text[agent.start() :]


def aims_harm(text: str, *, result_in: str, named_in: str, hidden_in: str, caused: list[re.Match[str]]) -> bool:
    """Whether `text` holds one of the aims of harm part 3 reads: a harmful outcome sought, a harm named outside a
    condition (in `named_in`), a result wanted of the person (in `result_in`), an act `caused` on them, something
    hidden (in `hidden_in`) or put in their food or drink, an evasion or the asker's own harm (care_act's guards, and
    clinical_practice.practice_asked's)."""
    return bool(
        goal_outcome(tokens_of(text))
        or harm_named_unconditioned(named_in)
        or _RESULT.search(result_in)
        or caused
        or _HIDDEN.search(hidden_in)
        or _IN_FOOD.search(text)
        or _PUT_INTO.search(text)
        or evasion_or_own_harm(_MASK_WORN.sub("their device", text))
    )


def care_act(text: str) -> bool:
    """Whether `text` asks how the asker is to act on a patient (give, treat, monitor, tell, position) with no aim of
    harm: no harmful outcome sought, no harm named outside a condition, no result wanted of the person, nothing
    caused on them but a comfort, nothing hidden, nothing put in their food or drink."""
    # (session 19, fix20) "someone" started on, switched to or taken off a drug is the prescriber's patient
    text = anyone_as_patient(text)
    parsed = asked_act(text)
    if parsed is None:
        return False
    _, acted_on = parsed
    if not _PERSON.search(acted_on) or _NOT_A_PATIENT.search(text):
        return False
    caused = [m for m in _CAUSED.finditer(text) if not _COMFORT.match(text, m.start()) and not (
        (ceased := _CEASED.match(text, m.start())) and _habit_or_symptom(ceased.group("ceased")))]
    return not aims_harm(text, result_in=acted_on, named_in=text, hidden_in=text, caused=caused)
