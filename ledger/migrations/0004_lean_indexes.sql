-- 0004: drop the two indexes of line_items that no query needs.
--   * line_items_resource (provider, resource_id, charge_period_start): line
--     items are read by month (line_items_period) and sorted in Go or by
--     SQLite's sorter; no query looks a resource up by this key.
--   * line_items_import (import_id): only `imports undo` and `doctor` select by
--     import, rarely, and a scan of the table serves them.
-- Building both at the end of a bulk import was a third of the index work
-- (measured with the sqlite3 tool on a 100k-row ledger: 0.47 s of 1.41 s), and
-- both grew every ledger by about 50 MB per million rows.
DROP INDEX IF EXISTS line_items_resource;
DROP INDEX IF EXISTS line_items_import;
