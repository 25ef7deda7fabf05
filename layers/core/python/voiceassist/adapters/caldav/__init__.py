"""CalDAV calendars (the `caldav` library; Radicale in the tests, Nextcloud or any CalDAV server in use)."""
