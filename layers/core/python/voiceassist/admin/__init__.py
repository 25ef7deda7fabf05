"""The operator's controls: the admin configuration (data, versioned and audited, applied without a restart)
and the cost ledger that caps cloud-model spending (docs/operations.md, "Admin configuration and cost limits")."""
