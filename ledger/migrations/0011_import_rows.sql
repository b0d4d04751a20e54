-- 0011 (gpubill extension): what turns a line item's source_row (its
-- 1-based record number after the header) into the row a person sees when
-- opening the file in Excel or LibreOffice. With imports.header_row (the
-- header's physical line or sheet row), record r is row header_row + r,
-- except after a quoted multi-line cell or a blank line that a CSV reader
-- skips: row_map is a JSON array of [record, row] pairs, one where that
-- stops being so, and from each pair on the rows run on one by one. '[]'
-- when the mapping is linear; NULL for imports made before this migration
-- (they are cited by record number).
ALTER TABLE imports ADD COLUMN row_map TEXT;
