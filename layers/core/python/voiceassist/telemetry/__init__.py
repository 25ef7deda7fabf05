"""The operator's metrics and views (decision 0040): points and aggregates (points.py), the telemetry report and
the Prometheus text (report.py), an admin's session trace (trace.py). Names live in constants.metrics."""
