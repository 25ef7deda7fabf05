"""Safety rails on what a clinician sends (the input screen) and on what an answer says."""
