"""WebDAV files (any server; Nextcloud's SEARCH and OCS full-text search where the account says so)."""
