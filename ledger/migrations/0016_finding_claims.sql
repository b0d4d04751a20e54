-- 0016 (gpubill extension): why a finding can be claimed from the platform
-- although its rule is not a refund rule. '' = as its rule says;
-- 'guard_stop' = billed after a gpubill guard shutdown (forgotten_instance
-- citing a guard marker). An audit writes it on every run, so a re-audit
-- without the marker clears it.
ALTER TABLE findings ADD COLUMN claim TEXT NOT NULL DEFAULT '';
