-- 0015 (gpubill extension): the vendor's line id as a second dedupe key.
-- row_key stays the field hash every format has; line_key is the id of the
-- line as the vendor knows it ("tencentcloud:<交易ID>/<组件类型>/<组件名称>#1",
-- "volcengine:<BillDetailId>#1"), or '' where neither the file nor the API
-- names one. A row is a duplicate when either key is known, so a month
-- fetched by API and imported from its CSV is stored once even where the
-- two spell a field differently, while rows stored before this migration
-- (line_key '') still dedupe by row_key: re-importing an old file adds
-- nothing.
ALTER TABLE line_items ADD COLUMN line_key TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX line_items_line_key ON line_items(line_key) WHERE line_key <> '';
