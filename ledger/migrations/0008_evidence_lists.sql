-- 0008 (gpubill extension): the evidence of a finding is stored as one row
-- per (finding, file), holding the cited line items as a JSON array of
-- [line_item_id, row] pairs, instead of one row per line item.
--   * An audit of a big month cites most of its line items: a million-item
--     month gave 41k findings and 890k evidence rows, written into two
--     B-trees (the table and its primary key), the file's path repeated in
--     every row. Storing 40k findings with 800k evidence rows took 1.3 s
--     and its commit 0.25 s; with the lists 0.5–0.6 s and 0.13 s.
--   * v_findings and v_finding_evidence keep their columns: the pairs are
--     expanded with json_each.
CREATE TABLE finding_evidence_lists (
    finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    file       TEXT NOT NULL,
    items      TEXT NOT NULL,  -- JSON: [[line_item_id, row], …], ordered by row, then id
    PRIMARY KEY (finding_id, file)
) WITHOUT ROWID;

INSERT INTO finding_evidence_lists(finding_id, file, items)
    SELECT finding_id, file, json_group_array(json_array(line_item_id, row))
    FROM (SELECT finding_id, file, line_item_id, row FROM finding_evidence ORDER BY finding_id, file, row, line_item_id)
    GROUP BY finding_id, file;

DROP VIEW v_finding_evidence;
DROP VIEW v_findings;
DROP TABLE finding_evidence;
ALTER TABLE finding_evidence_lists RENAME TO finding_evidence;

-- The findings stored by earlier audits (a user rule sees the previous run,
-- not the one it is part of), with the number of evidence rows.
CREATE VIEW v_findings AS
SELECT f.id, f.fingerprint, f.month, f.rule_id, f.severity, f.provider, f.resource_id,
       f.period_start, f.period_end, f.amount_at_risk, f.currency, f.basis,
       f.reason_zh, f.reason_en, f.advice_zh, f.advice_en, f.state,
       (SELECT coalesce(sum(json_array_length(e.items)), 0) FROM finding_evidence e WHERE e.finding_id = f.id) AS evidence_count
FROM findings f;

-- The evidence rows of the stored findings, one per cited line item.
CREATE VIEW v_finding_evidence AS
SELECT f.fingerprint, f.rule_id, j.value ->> 0 AS line_item_id, e.file, j.value ->> 1 AS row
FROM finding_evidence e JOIN findings f ON f.id = e.finding_id JOIN json_each(e.items) j;
