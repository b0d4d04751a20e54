-- 0013: the state of gpubill watch. watch_instances is what the last poll
-- saw of each instance (its state and since when), so that a cloud whose
-- API gives no start time (腾讯云 CVM) still has one; watch_alerts is each
-- alert sent, so that it is sent once, again only when it escalates, and is
-- cleared when its condition ends. A watch run holds the write lock from
-- reading this state to recording what it sent: two watchers never send
-- the same alert.
CREATE TABLE watch_instances (
    provider    TEXT NOT NULL,
    account     TEXT NOT NULL,
    instance_id TEXT NOT NULL,
    state       TEXT NOT NULL,          -- running | stopped | other
    since       TEXT NOT NULL,          -- RFC 3339: when it entered the state (the API's start time, else the first poll that saw it)
    since_known INTEGER NOT NULL,       -- 1: the API or an earlier poll saw the change; 0: already so at the first poll
    last_seen   TEXT NOT NULL,
    PRIMARY KEY (provider, account, instance_id)
) WITHOUT ROWID;

CREATE TABLE watch_alerts (
    alert_key   TEXT PRIMARY KEY,       -- kind, provider, account, instance and the episode's start
    kind        TEXT NOT NULL,          -- running_too_long | release_soon
    provider    TEXT NOT NULL,
    account     TEXT NOT NULL,
    instance_id TEXT NOT NULL,
    severity    TEXT NOT NULL,          -- of the last send
    step        INTEGER NOT NULL,       -- escalation step of the last send
    amount      TEXT,                   -- money at stake at the last send (exact decimal), NULL = unknown
    first_sent  TEXT NOT NULL,
    last_sent   TEXT NOT NULL,
    sends       INTEGER NOT NULL,
    cleared_at  TEXT                    -- when the condition ended; NULL = open
);
CREATE INDEX watch_alerts_open ON watch_alerts(provider, account) WHERE cleared_at IS NULL;
