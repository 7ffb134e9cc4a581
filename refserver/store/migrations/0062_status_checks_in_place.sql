-- The statuses of webhook deliveries and of orders were checked as
-- status IN (three or more values), which SQLite codes as a temporary
-- index built afresh every time a statement checking it runs: every
-- delivery queued for an event and every attempt's outcome, every order
-- created and every step of its status. The same rules written as
-- comparisons are checked in place, as the bills' status is (0034, which
-- says why the table's SQL is edited this way).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (status IN (''pending'', ''delivered'', ''failed''))',
                          'CHECK (status = ''pending'' OR status = ''delivered'' OR status = ''failed'')')
 WHERE type = 'table' AND name = 'webhook_deliveries';
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (status IN (''created'',''fulfillment_set'',''sent_to_pos'',''accepted_by_pos'',''failed''))',
                          'CHECK (status = ''created'' OR status = ''fulfillment_set'' OR status = ''sent_to_pos'' OR status = ''accepted_by_pos'' OR status = ''failed'')')
 WHERE type = 'table' AND name = 'orders';
PRAGMA writable_schema = RESET;
CREATE TABLE schema_reload (x);
DROP TABLE schema_reload;
