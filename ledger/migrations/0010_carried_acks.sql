-- 0010 (gpubill extension): acknowledgements carried to later months
-- (`gpubill audit ack --carry`). A finding's fingerprint includes its
-- period, so a 36-hour training run that is expected every month is a new
-- finding each month; one row here says that findings of the same rule,
-- provider and resource in months after from_month start acknowledged.
-- `audit reopen` of a carried finding removes its row.
CREATE TABLE carried_acks (
    rule_id     TEXT NOT NULL,
    provider    TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    from_month  TEXT NOT NULL,   -- YYYY-MM of the finding acknowledged
    fingerprint TEXT NOT NULL,   -- the finding acknowledged
    PRIMARY KEY (rule_id, provider, resource_id)
) WITHOUT ROWID;
