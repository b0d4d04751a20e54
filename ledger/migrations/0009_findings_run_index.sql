-- 0009 (gpubill extension): findings_month indexes (month, run_id) instead
-- of (month, rule_id). No query selects findings by rule; every audit
-- removes the open findings of its month that an earlier run produced
-- (AuditWriter.Commit), and without the run in the index that read every
-- finding of the month just written, about 80 ms for a month of 40k
-- findings.
DROP INDEX IF EXISTS findings_month;
CREATE INDEX findings_month ON findings(month, run_id);
