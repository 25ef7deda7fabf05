"""The local runtime: the same handlers and state machines as on AWS, served on 127.0.0.1."""
