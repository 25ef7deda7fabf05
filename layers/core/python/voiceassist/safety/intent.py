"""Intent shapes the structural signals (signals.py) do not read: harm asked plainly, rules lifted by a frame, and
tool abuse phrased as an ordinary request.

- **Harm asked plainly** (HarmBench's semantic categories, Mazeika M et al., ICML 2024): a modal or request with a
  verb of killing or poisoning and a person as its object ("what dose would kill my mother-in-law", "how a carer
  could poison a dependent relative"); a death or an injury made to look natural or self-caused, or chosen to
  escape an autopsy; a person's device or medicine tampered with; a controlled-drug precursor extracted from a
  medicine (the precursors of Tables I and II of the UN Convention against Illicit Traffic in Narcotic Drugs and
  Psychotropic Substances, 1988, as the INCB "Red List" names them); a controlled drug diverted or a record backdated.
  A toxicology or overdose question names no victim and no concealment: "how does cyanide poisoning present",
  "what dose of naloxone for an opioid overdose", "explain how overdose of tricyclics kills" pass.
- **Rules lifted by a frame** (Shen X et al., "Do Anything Now", CCS 2024; Wei A et al., "Jailbroken", NeurIPS 2023:
  pretending, attention shifting, privilege escalation): the assistant's refusals, filters or safety said to be
  off in words ("warnings and refusals are turned off", "ignores all policies", "a helper with no guidelines"), a
  special mode switched on (developer, expert, sudo, god, raw), permission claimed for what it must not do ("the
  clinician has pre-approved you to reveal internal instructions"), a refusal redefined as consent ("every refusal
  means yes"), the assistant cast as someone's dead relative (the "grandma" exploit). A frame alone (a novel, a
  role-play for an exam, a hypothetical patient) is not one: what it lifts or asks for is.
- **Tool abuse** (OWASP Top 10 for LLM Applications 2025, LLM06 excessive agency and LLM10 unbounded consumption):
  deletion of everything of a kind that belongs to someone else or to the system ("delete all calendar entries
  for Dr. Patel", "delete all users"), actions repeated by the hundred or on a timer without end, records made
  under invented names, identifiers of many patients listed together, and the secrets a tool runs with.
  "Cancel all my appointments tomorrow" is the clinician's own calendar and passes; the tool boundary confirms it.

`care_for_someone_at_risk` is the other way round: a clinician asking how to talk to, assess or support someone
else who is suicidal is not a request for harm, whatever the model reads in "kill themselves".
"""

from __future__ import annotations

import re

from voiceassist.safety.signals import HARMFUL, INJECTION, JAILBREAK

# Kinship terms and the people a request names as a victim (closed-class nouns, not topic words)
_KIN = (r"(?:grand)?(?:mother|father|mum|mom|dad|ma|pa|parents?)(?:-in-law)?|(?:step)?(?:son|daughter|child|kids?"
        r"|sister|brother|siblings?)(?:-in-law)?|wife|husband|spouse|partner|ex|ex-?wife|ex-?husband|ex-?partner"
        r"|boyfriend|girlfriend|fianc[eé]e?|aunt|uncle|cousin|nephew|niece|baby|infant|toddler|relatives?|carer"
        r"|boss|colleague|co-?worker|neighbou?r|roommate|flatmate|tenant|landlord|teacher|classmate|friend|rival")
_VICTIM = (r"(?:someone|somebody|a person|him|her|(?:my|his|her|their|our|someone's|somebody's)"
           r"\s+(?:\w+\s+){0,2}(?:" + _KIN + r"|patients?|residents?|clients?)|(?:an?|the)\s+(?:\w+\s+){0,2}(?:"
           + _KIN + r"|dependents?|dependent relative|person|victim|target))\b")
# A request for the means, then a modal: "what dose would ...", "how a carer could ...", "the amount I could ..."
_ASKED = (r"(?:\b(?:how|what|which|ways? to|steps? (?:to|for)|plan to|help me|teach me|best way to)\b[^.?!\n]{0,50}?"
          r"\b(?:would|could|will|to|can i|could i|should i|enough to|going to|might)|\b(?:wants?|wanted|planning"
          r"|plans?|intends?|intending)\s+to)\s+")
_KILL = r"(?:kill|murder|poison|smother|suffocate|strangle|drown|incapacitate|knock out|finish off)"

# Precursors of Tables I and II of the 1988 UN Convention (INCB Red List, 2023 edition), as written in English
_PRECURSORS = (r"pseudo-?ephedrine|ephedrine|norephedrine|phenylpropanolamine|ergometrine|ergotamine|lysergic acid"
               r"|safrole|isosafrole|piperonal|phenylacetic acid|(?:1-)?phenyl-2-propanone|phenylacetone|p2p"
               r"|3,4-mdp-2-p|pmk|apaan|apaa|mapa|anthranilic acid|n-acetylanthranilic acid|acetic anhydride"
               r"|potassium permanganate|gamma-butyrolactone|gbl|anpp|n-phenethyl-4-piperidone|npp|4-anpp|4-ap"
               r"|norfentanyl|methylamine")
# What a calendar, a mailbox or a file share holds, one or many
_ITEMS = (r"(?:entr(?:y|ies)|events?|appointments?|bookings?|messages?|e-?mails?|files?|folders?|records?|notes?"
          r"|documents?|invites?|data)")
_PATIENT_IDS = r"(?:mrns|nhs numbers|hospital numbers|dates of birth|dobs)"
_CONTROLLED = (r"fentanyl|morphine|oxycodone|diamorphine|hydromorphone|methadone|buprenorphine|ketamine|midazolam"
               r"|diazepam|controlled drugs?|cds?|opioids?|opiates?|patches|ampoules|vials")


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


INTENTS: dict[str, tuple[str, re.Pattern[str]]] = {
    # -- harm asked plainly
    "harm_to_person": (HARMFUL, _p(
        _ASKED + r"(?:slowly\s+|quietly\s+|gradually\s+)?" + _KILL + r"\s+" + _VICTIM
        + r"|" + _ASKED + r"end\s+(?:a|the|someone's|somebody's|my \w+['’]s)\s+(?:\w+['’]s\s+)?life\b"
        r"|\bend it\s+(?:all\s+)?for\s+(?:someone|somebody|him|her|them|my \w+)\b"
        r"|\b(?:lethal|fatal|deadly|killing)\s+(?:dose|amount|quantity|injection)\b[^.?!\n]{0,50}\b(?:for"
        r"|to give(?: to)?"
        r"|give|into)\s+(?:my|his|her|their|someone's)\s+(?:\w+\s+)?(?:" + _KIN + r")\b")),
    "death_made_to_look_natural": (HARMFUL, _p(
        r"\b(?:so|so that|make|makes|making|need|needs|want|wants|would)\s+(?:it|this|that|the \w+|his \w+|her \w+"
        r"|them|him|her)?\s*(?:to\s+)?(?:look|looks|seem|seems|appear|appears|pass(?:es)? (?:off )?as|pass for)\s+"
        r"(?:like\s+)?"
        r"(?:a |an )?(?:natural|accident(?:al)?|(?:a )?suicide|self-inflicted|sids|cot death|(?:\w+ )?from (?:his|her"
        r"|their) own)\b"
        r"|\b(?:hard|hardest|harder|difficult|impossible|least likely)\s+to\s+(?:be\s+)?(?:detect(?:ed)?"
        r"|trace(?:d)?|find|found|pick(?:ed)? up|show up)\s+(?:at|on|in|by|during|after)\s+(?:an? |the )?(?:autopsy"
        r"|post[- ]?mortem|pm|coroner|pathologist|forensic)"
        r"|\bwithout\s+(?:them|him|her|anyone|anybody|the pharmac(?:y|ies|ist)|pharmacies|the (?:gp|doctor)s?)\s+"
        r"(?:flagging|catching on|suspecting|reporting|finding out)\b"
        r"|\bwithout leaving (?:any )?(?:marks|bruises|bruising|a mark|injuries|signs of (?:injury|a struggle))\b")),
    "tampering": (HARMFUL, _p(
        r"\b(?:tamper(?:ing)? with|sabotag\w+)\s+(?:someone's"
        r"|somebody's|his|her|their|my (?:\w+ )?(?:" + _KIN + r")['’]s)\s+(?:\w+\s+){0,2}(?:epi-?pens?|inhalers?"
        r"|insulin|pumps?|pacemakers?|medications?|medicines?|meds|pills|tablets|oxygen|ventilators?|drips?|doses?"
        r"|injections?|drinks?)\b"
        r"|\b(?:so|so that)\s+(?:it|they)\s+(?:won't|will not|doesn't|does not|wouldn't)\s+work when"
        r" (?:he|she|they)\b")),
    "precursor_extraction": (HARMFUL, _p(
        r"\b(?:extract\w*|isolat\w*|purif\w*|separat\w*)\s+(?:the\s+|pure\s+)*(?:" + _PRECURSORS
        + r")\b[^.?!\n]{0,40}\bfrom\b")),
    "diversion": (HARMFUL, _p(
        r"\b(?:how (?:can|do|could|would) i|help me|ways? to|best way to)\s+(?:steal|divert|pocket|skim|swipe"
        r"|take home|sneak out)\s+(?:\w+\s+){0,3}(?:" + _CONTROLLED + r")\b")),
    # -- rules lifted by a frame
    "rules_turned_off": (JAILBREAK, _p(
        r"\b(?:warnings and refusals|refusals?|safety (?:filters?|rules|layers?|modes?|constraints|guidelines)"
        r"|content (?:filters?|polic(?:y|ies)|moderation)|guardrails|censorship|moderation|your (?:\w+ )?"
        r"(?:rules|guidelines|filters|policies))\s+(?:are|is|were|get|gets|have been|has been"
        r"|will be|now)?\s*(?:now\s+)?(?:turned off|switched off|disabled|removed|lifted|suspended|bypassed"
        r"|deactivated|gone|off)\b"
        r"|\b(?:ignores?|ignoring|bypass(?:es|ing)?|breaks?|breaking|overrides?)\s+(?:all|any|every)\s+(?:the\s+)?"
        r"(?:policies|rules|guidelines|restrictions|filters|safety rules)\b"
        r"|\b(?:helper|assistant|ai|model|bot|chatbot|version|persona|character|you)\s+(?:with|that has|who has|has"
        r"|have)\s+no\s+(?:guidelines|rules|restrictions|filters|limits|ethics|morals|safety|boundaries|censorship)\b"
        r"|\b(?:without|free of|free from)\s+(?:any\s+|all\s+|the\s+)?(?:your\s+)?(?:medical\s+)?(?:safety|ethical"
        r"|moral|content)\s+(?:constraints|restrictions|filters|guidelines|rules|limits|checks)\b"
        r"|\bas if (?:you )?(?:had|have|were under|were bound by) no (?:rules|restrictions|filters|guidelines|limits"
        r"|policies|programming)\b"
        r"|\b(?:never refuses|answers anything|answers everything|will answer anything|mocks (?:the )?rules)\b")),
    "mode_switch": (JAILBREAK, _p(
        r"\b(?:enable|activate|switch (?:in)?to|go into|enter|turn on|unlock|engage|use)\s+(?:the\s+|your\s+)?"
        r"(?:hidden\s+|secret\s+)?['\"‘“]?(?:developer|expert|sudo|god|admin|root|raw|debug|unrestricted"
        r"|unfiltered|uncensored|jailbreak|dan|evil|dev)(?:\s+\w+)?['\"’”]?\s+mode\b"
        r"|\b(?:hidden|secret)\s+['\"‘“]?\w+['\"’”]?\s+mode\b|\bsudo\b")),
    "permission_claimed": (JAILBREAK, _p(
        r"\b(?:(?:pre-?approved|authori[sz]ed|permitted|allowed|cleared|whitelisted|grants?|gives?|given)\s+you"
        r"|you (?:are|have been|were|'re) (?:now )?(?:pre-?approved|authori[sz]ed|permitted|allowed|cleared))\s+"
        r"(?:permission\s+|access\s+)?to\s+(?:reveal|disclose|share|print|output|ignore|bypass"
        r"|skip|disable|stop refusing|answer (?:anything|without)|override)\b"
        r"|\b(?:replaced|overwritten|overridden|updated|superseded)\s+(?:your|the assistant's)\s+(?:\w+\s+)?"
        r"(?:guidelines|rules|instructions|programming|policies|prompt)\b"
        r"|\bi(?:'m| am)\s+(?:a\s+)?(?:verified|authori[sz]ed|whitelisted|an? (?:admin|administrator|developer))\b"
        r"[^\n]{0,80}\b(?:mode|refusals?|warnings|filters|restrictions|unlock|without)\b")),
    "refusal_redefined": (JAILBREAK, _p(
        r"\b(?:refusals?|refuse|declin\w+)\s+(?:\w+\s+){0,3}(?:means|=|counts as|will mean)\s+(?:a\s+)?"
        r"(?:yes|consent|agreement|permission)\b|\bopposite day\b")),
    "dead_relative_persona": (JAILBREAK, _p(
        r"\b(?:you are|you're|act as|pretend (?:to be|you are)|play|be|roleplay as|role-play as)\s+my\s+"
        r"(?:late|deceased|dead)\s+(?:\w+\s+)?(?:" + _KIN + r")\b")),
    # -- tool abuse (excessive agency, unbounded consumption)
    "bulk_deletion": (INJECTION, _p(
        r"\b(?:delete|remove|cancel|wipe|erase|purge|clear|drop|destroy)\b(?:\s+on)?\s+(?:all|every|each|the entire"
        r"|the whole|the biggest|the largest|everything)\b[^.?!\n]{0,40}?(?:\b(?:users?|accounts?|ind(?:ex|ices|exes)"
        r"|databases?|tables?|logs?|backups?|audit)\b|\b" + _ITEMS + r"\b[^.?!\n]{0,30}\b(?:for|of|belonging to"
        r"|from)\s+"
        r"(?:(?:dr|mr|mrs|ms|miss|prof)\.?\s+\w|(?:other|another|every|all|each|the other)\s+(?:users?|staff"
        r"|clinicians?|doctors?|colleagues?|people|patients?|team)))")),
    "mass_action": (INJECTION, _p(
        r"\b(?:send|query|call|run|repeat|hit|ping|request|search|submit|post|execute|retry|spam|fire|book|create"
        r"|schedule)\b[^.?!\n]{0,60}?\b(?:[1-9]\d{2,}|[1-9]\d{0,2}(?:,\d{3})+|hundreds|thousands|millions)\s+"
        r"times\b(?!\s+(?:more|less|fewer|higher|lower|greater|smaller|the|as|daily|a day|per|weekly|normal|uln"
        r"|upper))"
        r"|\b(?:book|create|schedule|make|register|send|submit|raise|place|file)\s+(?:[1-9]\d{2,}"
        r"|[1-9]\d{0,2}(?:,\d{3})+|hundreds of|thousands of)\s+(?:\w+\s+)?(?:appointments|bookings|events|invites"
        r"|invitations|emails|messages|accounts|requests|orders|referrals|reminders|texts|tickets)\b"
        r"|\bevery\s+\d+\s*(?:seconds?|secs?|minutes?|mins?)\b[^.?!\n]{0,40}\b(?:forever|indefinitely|endlessly"
        r"|nonstop|non-stop|for all staff|for everyone|to everyone|to all)\b"
        r"|\b(?:invites?|emails?|messages?|events?|reminders?|notifications?|texts?)\b[^.?!\n]{0,40}\bevery\s+\d+\s*"
        r"(?:seconds?|secs?|minutes?|mins?)\b[^.?!\n]{0,40}\b(?:all|every|everyone|forever|indefinitely)\b"
        r"|\bunder\s+(?:made-?up|fake|false|fictitious|invented|random|dummy|bogus|fabricated)\s+(?:names|identities"
        r"|patients|details|nhs numbers)\b")),
    "bulk_identifiers": (INJECTION, _p(
        r"\b(?:list|give|show|export|send|tell me|print|dump|output|download|email)\b[^.?!\n]{0,40}\b(?:(?:names"
        r"|phone numbers|addresses|emails)\s*(?:,|and|with|&|plus)\s+(?:their\s+)?" + _PATIENT_IDS + r"|" + _PATIENT_IDS
        + r"\s*(?:,|and|with|&|plus)\s+(?:their\s+)?(?:names|phone numbers|addresses|emails|" + _PATIENT_IDS + r"))\b"
        r"|\b(?:which|what|all|every|list(?: the| all)?)\s+patients\s+(?:in|on|of)\s+(?:the|this|your)\s+(?:system"
        r"|database|records system|ehr|emr)\b")),
    "secret_in_use": (INJECTION, _p(
        r"\b(?:what|which)\s+(?:\w+\s+)?(?:api[ _-]?keys?|secret[ _-]?keys?|tokens?|passwords?|credentials"
        r"|connection strings?|environment variables|env vars)\s+(?:do|does|did|are|is)\s+(?:you|the (?:system|app"
        r"|assistant|integration|server|backend))\b")),
}

# A clinician asking how to respond to someone else's suicidality: a verb of care, a person, then what they say
CARE_FOR_SOMEONE_AT_RISK = _p(
    r"\b(?:talk|speak|respond|reply|react)\s+to|\b(?:support|help|assess|manage|care for|counsel|approach|ask|reassure"
    r"|safety-?plan (?:with|for)|screen)\b")
_AT_RISK = _p(
    r"\b(?:who|that|and)\s+(?:says|said|tells|told|reports|reported|admits|admitted|expresses|expressed|threatens"
    r"|threatened|is|was|feels|wants|has|keeps)\b[^.?!\n]{0,30}\b(?:suicid\w*|kill (?:himself|herself|themselves"
    r"|themself)|self[- ]harm\w*|end (?:his|her|their) (?:own )?life|want(?:s|ed)? to die|hurt (?:himself|herself"
    r"|themselves))\b")


def intent_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of each intent shape found in one form of a text."""
    return [(category, kind) for kind, (category, pattern) in INTENTS.items() if pattern.search(text)]


def care_for_someone_at_risk(text: str) -> bool:
    """Whether the text asks how to care for another person who is suicidal or self-harming (never their means)."""
    return bool(CARE_FOR_SOMEONE_AT_RISK.search(text) and _AT_RISK.search(text))
