-- 0013 (gpubill extension): the imports that brought a row again. A row is
-- stored once, under the import that brought it first (row_key is
-- unique); a later import that brings the same row (an overlapping export)
-- adds a claim here, with the record number the row has in its own file.
-- Undoing the first import hands each of its claimed rows to the earliest
-- remaining claim instead of deleting it (UndoImport). tbl is the table of
-- the row: line_items, transactions or payments.
CREATE TABLE row_claims (
    tbl        TEXT    NOT NULL,
    row_key    TEXT    NOT NULL,
    import_id  INTEGER NOT NULL,
    source_row INTEGER NOT NULL,
    PRIMARY KEY (tbl, row_key, import_id)
) WITHOUT ROWID;
CREATE INDEX row_claims_import ON row_claims(import_id);
