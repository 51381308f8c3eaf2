"""Schema migrations, applied in order by `PRAGMA user_version`; never edit an applied one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step; all its statements and the version bump commit together."""

    version: int
    name: str
    statements: tuple[str, ...]


M001_FOUNDATION = Migration(
    1,
    "foundation: meta, facts, events",
    (
        """CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )""",
        "INSERT INTO meta(key, value) VALUES ('change_counter', '0')",
        """CREATE TABLE facts (
            id         INTEGER PRIMARY KEY,
            target     TEXT NOT NULL CHECK (target IN ('user', 'env')),
            key        TEXT,
            content    TEXT NOT NULL,
            pinned     INTEGER NOT NULL DEFAULT 0,
            keywords   TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        "CREATE UNIQUE INDEX facts_target_key ON facts(target, key) WHERE key IS NOT NULL",
        "CREATE INDEX facts_target ON facts(target, id)",
        """CREATE TABLE events (
            id      INTEGER PRIMARY KEY AUTOINCREMENT,
            ts      REAL NOT NULL,
            actor   TEXT NOT NULL CHECK (actor IN ('agent', 'admin', 'system')),
            kind    TEXT NOT NULL,
            subject TEXT,
            detail  TEXT NOT NULL DEFAULT '{}'
        )""",
        "CREATE INDEX events_kind ON events(kind, id)",
        "CREATE INDEX events_subject ON events(subject)",
        # The audit log is evidence: nothing may rewrite or delete it.
        """CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
           BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        """CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
           BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    ),
)

MIGRATIONS: tuple[Migration, ...] = (M001_FOUNDATION,)

M002_ATOMS = Migration(
    2,
    "atoms, pending reviews, confirmed user-model fields",
    (
        # `num` is the stable integer key FTS and vectors point at (a bare rowid may change on VACUUM).
        """CREATE TABLE atoms (
            num               INTEGER PRIMARY KEY AUTOINCREMENT,
            id                TEXT NOT NULL UNIQUE,
            type              TEXT NOT NULL,
            text              TEXT NOT NULL,
            norm              TEXT NOT NULL,
            source_class      TEXT NOT NULL,
            confidence        REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
            importance        TEXT NOT NULL CHECK (importance IN ('critical', 'high', 'medium', 'low')),
            pinned            INTEGER NOT NULL DEFAULT 0,
            tags              TEXT NOT NULL DEFAULT '[]',
            why               TEXT,
            how_to_apply      TEXT,
            scope             TEXT NOT NULL CHECK (scope IN ('user', 'project', 'global')),
            project           TEXT,
            session_id        TEXT,
            turn              INTEGER,
            related           TEXT NOT NULL DEFAULT '[]',
            status            TEXT NOT NULL CHECK (status IN ('live', 'quarantined')),
            quarantine_reason TEXT,
            findings          TEXT,
            expires_at        REAL,
            created_at        REAL NOT NULL,
            updated_at        REAL NOT NULL,
            last_recalled_at  REAL,
            recall_count      INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX atoms_norm ON atoms(norm)",
        "CREATE INDEX atoms_status ON atoms(status, created_at)",
        "CREATE INDEX atoms_type ON atoms(type) WHERE status = 'live'",
        "CREATE INDEX atoms_project ON atoms(project) WHERE project IS NOT NULL",
        """CREATE TABLE pending_reviews (
            id          TEXT PRIMARY KEY,
            field_path  TEXT NOT NULL,
            value       TEXT NOT NULL,
            evidence    TEXT NOT NULL DEFAULT '',
            confidence  REAL NOT NULL,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            expires_at  REAL NOT NULL,
            UNIQUE (field_path, value)
        )""",
        """CREATE TABLE user_model (
            field_path   TEXT PRIMARY KEY,
            value        TEXT NOT NULL,
            source_class TEXT NOT NULL,
            updated_at   REAL NOT NULL
        )""",
    ),
)

M003_RECALL = Migration(
    3,
    "recall: FTS5 over live atoms, vectors, the embed queue, associations",
    (
        # Only live atoms are indexed: quarantined text never enters a recall structure.
        """CREATE VIRTUAL TABLE atoms_fts USING fts5(
            text, tags, content='atoms', content_rowid='num', tokenize='porter unicode61'
        )""",
        # Text counts more than tags; FTS5 keeps this as its `rank`, which it can sort cheaply.
        "INSERT INTO atoms_fts(atoms_fts, rank) VALUES ('rank', 'bm25(1.0, 0.4)')",
        """CREATE TRIGGER atoms_fts_insert AFTER INSERT ON atoms WHEN new.status = 'live' BEGIN
            INSERT INTO atoms_fts(rowid, text, tags) VALUES (new.num, new.text, new.tags);
        END""",
        """CREATE TRIGGER atoms_fts_delete AFTER DELETE ON atoms WHEN old.status = 'live' BEGIN
            INSERT INTO atoms_fts(atoms_fts, rowid, text, tags) VALUES ('delete', old.num, old.text, old.tags);
        END""",
        """CREATE TRIGGER atoms_fts_update_old AFTER UPDATE OF text, tags, status ON atoms
           WHEN old.status = 'live' BEGIN
            INSERT INTO atoms_fts(atoms_fts, rowid, text, tags) VALUES ('delete', old.num, old.text, old.tags);
        END""",
        """CREATE TRIGGER atoms_fts_update_new AFTER UPDATE OF text, tags, status ON atoms
           WHEN new.status = 'live' BEGIN
            INSERT INTO atoms_fts(rowid, text, tags) VALUES (new.num, new.text, new.tags);
        END""",
        """CREATE TABLE vectors (
            atom_num INTEGER PRIMARY KEY,
            space    TEXT NOT NULL,
            seq      INTEGER NOT NULL,
            scale    REAL NOT NULL,
            vec      BLOB NOT NULL
        )""",
        "CREATE INDEX vectors_seq ON vectors(seq)",
        # Atoms waiting for a vector in the configured space (new, promoted, edited, or re-embedding).
        "CREATE TABLE embed_queue (atom_num INTEGER PRIMARY KEY)",
        """CREATE TRIGGER atoms_queue_insert AFTER INSERT ON atoms WHEN new.status = 'live' BEGIN
            INSERT OR IGNORE INTO embed_queue(atom_num) VALUES (new.num);
        END""",
        """CREATE TRIGGER atoms_queue_update AFTER UPDATE OF text, status ON atoms WHEN new.status = 'live' BEGIN
            INSERT OR IGNORE INTO embed_queue(atom_num) VALUES (new.num);
        END""",
        """CREATE TABLE associations (
            src    INTEGER NOT NULL,
            dst    INTEGER NOT NULL,
            kind   TEXT NOT NULL CHECK (kind IN ('temporal', 'task', 'semantic')),
            weight REAL NOT NULL,
            PRIMARY KEY (src, dst, kind)
        ) WITHOUT ROWID""",
        "CREATE INDEX associations_dst ON associations(dst)",
        """CREATE TRIGGER atoms_cleanup_delete AFTER DELETE ON atoms BEGIN
            DELETE FROM vectors WHERE atom_num = old.num;
            DELETE FROM embed_queue WHERE atom_num = old.num;
            DELETE FROM associations WHERE src = old.num OR dst = old.num;
        END""",
        """CREATE TRIGGER atoms_cleanup_quarantine AFTER UPDATE OF status ON atoms WHEN new.status != 'live' BEGIN
            DELETE FROM vectors WHERE atom_num = old.num;
            DELETE FROM embed_queue WHERE atom_num = old.num;
        END""",
        "INSERT INTO meta(key, value) VALUES ('embedding_space', '')",
    ),
)

MIGRATIONS = (M001_FOUNDATION, M002_ATOMS, M003_RECALL)

M004_EMBEDDING_CACHE = Migration(
    4,
    "content-hash cache of remote embeddings",
    (
        """CREATE TABLE embedding_cache (
            hash  TEXT NOT NULL,
            space TEXT NOT NULL,
            scale REAL NOT NULL,
            vec   BLOB NOT NULL,
            PRIMARY KEY (hash, space)
        ) WITHOUT ROWID""",
    ),
)

MIGRATIONS = (M001_FOUNDATION, M002_ATOMS, M003_RECALL, M004_EMBEDDING_CACHE)

# What keeps episodes_fts in step with live episodes: made with the table (migration 5) and made again
# when migration 21 rebuilds the table (its triggers go with the old one).
_EPISODES_FTS_TRIGGERS = (
    """CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes WHEN new.status = 'live' BEGIN
            INSERT INTO episodes_fts(rowid, summary) VALUES (new.num, new.summary);
        END""",
    """CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes WHEN old.status = 'live' BEGIN
            INSERT INTO episodes_fts(episodes_fts, rowid, summary) VALUES ('delete', old.num, old.summary);
        END""",
    "CREATE TRIGGER episodes_fts_update_old AFTER UPDATE OF summary, status ON episodes "
    """WHEN old.status = 'live' BEGIN
            INSERT INTO episodes_fts(episodes_fts, rowid, summary) VALUES ('delete', old.num, old.summary);
        END""",
    "CREATE TRIGGER episodes_fts_update_new AFTER UPDATE OF summary, status ON episodes "
    """WHEN new.status = 'live' BEGIN
            INSERT INTO episodes_fts(rowid, summary) VALUES (new.num, new.summary);
        END""",
)

M005_SESSIONS = Migration(
    5,
    "sessions (buffer, notes, turns) and episodes",
    (
        """CREATE TABLE sessions (
            id               TEXT PRIMARY KEY,
            project          TEXT,
            untrusted        INTEGER NOT NULL DEFAULT 0,
            untrusted_reason TEXT,
            turns            INTEGER NOT NULL DEFAULT 0,
            started_at       REAL NOT NULL,
            last_at          REAL NOT NULL,
            ended_at         REAL,
            frozen_facts     TEXT
        )""",
        """CREATE TABLE session_buffer (
            session_id TEXT NOT NULL,
            seq        INTEGER NOT NULL,
            line       TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TABLE session_notes (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            category   TEXT NOT NULL CHECK (category IN ('decision', 'context', 'progress', 'issue', 'learnings')),
            text       TEXT NOT NULL,
            created_at REAL NOT NULL,
            UNIQUE (session_id, text)
        )""",
        "CREATE INDEX session_notes_session ON session_notes(session_id, id)",
        """CREATE TABLE session_turns (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            text       TEXT NOT NULL,
            ts         REAL NOT NULL
        )""",
        "CREATE INDEX session_turns_session ON session_turns(session_id, id)",
        """CREATE TABLE episodes (
            num          INTEGER PRIMARY KEY,
            id           TEXT NOT NULL UNIQUE,
            session_id   TEXT NOT NULL UNIQUE,
            project      TEXT,
            summary      TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('live', 'held')),
            source_class TEXT NOT NULL,
            turns        INTEGER NOT NULL,
            created_at   REAL NOT NULL,
            expires_at   REAL,
            scale        REAL,
            vec          BLOB
        )""",
        "CREATE INDEX episodes_created ON episodes(created_at)",
        # Held (untrusted) episodes are never indexed for recall.
        """CREATE VIRTUAL TABLE episodes_fts USING fts5(
            summary, content='episodes', content_rowid='num', tokenize='porter unicode61'
        )""",
        *_EPISODES_FTS_TRIGGERS,
    ),
)

MIGRATIONS = (M001_FOUNDATION, M002_ATOMS, M003_RECALL, M004_EMBEDDING_CACHE, M005_SESSIONS)

M006_SALIENT_INDEX = Migration(
    6,
    "index of pinned and important live atoms (the context block's memory index)",
    (
        """CREATE INDEX atoms_salient ON atoms(created_at)
           WHERE status = 'live' AND (pinned = 1 OR importance IN ('critical', 'high'))""",
    ),
)

MIGRATIONS = (M001_FOUNDATION, M002_ATOMS, M003_RECALL, M004_EMBEDDING_CACHE, M005_SESSIONS, M006_SALIENT_INDEX)

M007_ANTICIPATION = Migration(
    7,
    "anticipation: resume after a break, predicted intents, user-model evidence, nudge log",
    (
        # When the latest resume after a break happened, how long the gap was, and which
        # session's state the "where you left off" block is about (this one, or the previous one).
        "ALTER TABLE sessions ADD COLUMN resumed_turn INTEGER",
        "ALTER TABLE sessions ADD COLUMN resume_gap_s REAL",
        "ALTER TABLE sessions ADD COLUMN resumed_from TEXT",
        # Follow-up intents the memory LLM predicted after the latest turn (JSON list), for the next context.
        "ALTER TABLE sessions ADD COLUMN predicted TEXT",
        "ALTER TABLE sessions ADD COLUMN predicted_turn INTEGER",
        "CREATE INDEX sessions_last_at ON sessions(last_at)",
        "ALTER TABLE user_model ADD COLUMN evidence TEXT NOT NULL DEFAULT ''",
        """CREATE TABLE nudges_shown (
            id         INTEGER PRIMARY KEY,
            kind       TEXT NOT NULL,
            subject    TEXT NOT NULL,
            session_id TEXT,
            shown_at   REAL NOT NULL
        )""",
        "CREATE INDEX nudges_shown_at ON nudges_shown(shown_at)",
    ),
)

M008_TURNS = Migration(
    8,
    "turn memories: the assistant's question a short answer replies to, dates its words refer to",
    (
        # `cue`: the assistant's question a user turn answers ("the blue one"), indexed so the answer
        # is found through its question, and shown labelled as the assistant's words, never the user's.
        "ALTER TABLE atoms ADD COLUMN cue TEXT",
        # `dates`: JSON [[phrase, label], ...] for relative time in the text, resolved when it was said.
        "ALTER TABLE atoms ADD COLUMN dates TEXT",
        "DROP TRIGGER atoms_fts_insert",
        "DROP TRIGGER atoms_fts_delete",
        "DROP TRIGGER atoms_fts_update_old",
        "DROP TRIGGER atoms_fts_update_new",
        "DROP TABLE atoms_fts",
        """CREATE VIRTUAL TABLE atoms_fts USING fts5(
            text, tags, cue, content='atoms', content_rowid='num', tokenize='porter unicode61'
        )""",
        # The cue counts less than the user's own words: it helps find an answer, it is not the answer.
        "INSERT INTO atoms_fts(atoms_fts, rank) VALUES ('rank', 'bm25(1.0, 0.4, 0.5)')",
        """CREATE TRIGGER atoms_fts_insert AFTER INSERT ON atoms WHEN new.status = 'live' BEGIN
            INSERT INTO atoms_fts(rowid, text, tags, cue) VALUES (new.num, new.text, new.tags, new.cue);
        END""",
        """CREATE TRIGGER atoms_fts_delete AFTER DELETE ON atoms WHEN old.status = 'live' BEGIN
            INSERT INTO atoms_fts(atoms_fts, rowid, text, tags, cue)
            VALUES ('delete', old.num, old.text, old.tags, old.cue);
        END""",
        """CREATE TRIGGER atoms_fts_update_old AFTER UPDATE OF text, tags, cue, status ON atoms
           WHEN old.status = 'live' BEGIN
            INSERT INTO atoms_fts(atoms_fts, rowid, text, tags, cue)
            VALUES ('delete', old.num, old.text, old.tags, old.cue);
        END""",
        """CREATE TRIGGER atoms_fts_update_new AFTER UPDATE OF text, tags, cue, status ON atoms
           WHEN new.status = 'live' BEGIN
            INSERT INTO atoms_fts(rowid, text, tags, cue) VALUES (new.num, new.text, new.tags, new.cue);
        END""",
        "INSERT INTO atoms_fts(rowid, text, tags, cue) SELECT num, text, tags, cue FROM atoms WHERE status = 'live'",
    ),
)

M009_RELAYED = Migration(
    9,
    "sessions: 'relayed' tracked apart from 'untrusted'",
    (
        # Strict mode marks a session whose turns the agent relayed. That used to be recognised by the
        # untrusted reason alone, so a web tool event reported first hid it (one reason per session).
        "ALTER TABLE sessions ADD COLUMN relayed INTEGER NOT NULL DEFAULT 0",
        # The reason text as strict mode wrote it until now (model.RELAYED_REASON up to version 8).
        "UPDATE sessions SET relayed = 1 "
        "WHERE untrusted_reason = 'strict mode: the turns were relayed by the agent, not a host hook'",
    ),
)

M010_EPISODE_SOURCE = Migration(
    10,
    "episodes: a live summary is attributed to the session, not to the user",
    (
        # An episode summary retells the assistant's turns too; labelled user_said, an assistant's
        # claim read as the user's statement (model.SESSION_SUMMARY).
        "UPDATE episodes SET source_class = 'session_summary' WHERE source_class = 'user_said'",
    ),
)

M011_SESSION_ATOMS = Migration(
    11,
    "index of each session's atoms (the temporal and same-task links of every write)",
    (
        # Every atom written in a session looks up the session's latest atoms; without this index that
        # walked every live atom (O(store) per write once each turn is kept).
        "CREATE INDEX atoms_session ON atoms(session_id, num) WHERE session_id IS NOT NULL",
    ),
)

M012_CHAT_IMPORTS = Migration(
    12,
    "import keys of conversations and turns brought in from chat exports",
    (
        # One row per imported conversation turn (and one per conversation), so importing the same
        # export again, or a later export of the same account, skips what is already here.
        """CREATE TABLE chat_imports (
            key         TEXT PRIMARY KEY,
            session_id  TEXT NOT NULL,
            imported_at REAL NOT NULL
        ) WITHOUT ROWID""",
    ),
)


def _project_rule(table: str) -> tuple[str, ...]:
    """Statements that bring `table.project` under the naming rule of projects.py, without the git lookup.

    A path becomes its last component (separators `/` or `\\`, trailing ones dropped); every name is
    then trimmed, lower-cased, with spaces as `-`; an empty one becomes NULL.
    """
    path = "rtrim(replace(trim(project), '\\', '/'), '/')"
    last = f"replace({path}, rtrim({path}, replace({path}, '/', '')), '')"
    return (
        f"UPDATE {table} SET project = {last} WHERE project LIKE '%/%' OR project LIKE '%\\%' OR project LIKE '~%'",
        f"UPDATE {table} SET project = replace(lower(trim(project)), ' ', '-') WHERE project IS NOT NULL",
        f"UPDATE {table} SET project = NULL WHERE project = ''",
    )


M013_PROJECT_NAMES = Migration(
    13,
    "project names under one rule: hooks stored the working directory, agents pass a name",
    (*_project_rule("atoms"), *_project_rule("sessions"), *_project_rule("episodes")),
)


# The next live atom of the same session, after the atom `old` (its vector mixes in old's words).
_NEXT_IN_SESSION = (
    "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms "
    "WHERE session_id = old.session_id AND status = 'live' AND num > old.num ORDER BY num LIMIT 1"
)

M014_SESSION_CONTEXT = Migration(
    14,
    "vectors of session atoms read in context: re-embedded when the memory before them changes",
    (
        # An atom written in a session is embedded with the words of the live memory said before it
        # (services/recall.py, CONTEXT_WEIGHT). When that memory is forgotten, evicted, quarantined,
        # promoted or edited, the next one is queued, so no vector keeps words that are gone.
        f"""CREATE TRIGGER atoms_context_delete AFTER DELETE ON atoms
           WHEN old.session_id IS NOT NULL AND old.status = 'live' BEGIN
            {_NEXT_IN_SESSION};
        END""",
        f"""CREATE TRIGGER atoms_context_update AFTER UPDATE OF text, cue, status ON atoms
           WHEN old.session_id IS NOT NULL AND (old.status = 'live' OR new.status = 'live') BEGIN
            {_NEXT_IN_SESSION};
        END""",
        # Vectors stored before this version were embedded without their context.
        "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms "
        "WHERE status = 'live' AND session_id IS NOT NULL",
    ),
)

M015_COMPACT_LINKS = Migration(
    15,
    "associations: kind and weight as small integers (a turn makes about eight links)",
    (
        # Every observed turn stores ~8 links, each also in associations_dst: with the kind as text
        # and the weight as an 8-byte real they took ~400 bytes a turn. The kind is now a code
        # (store/recall.py LINK_KINDS) and the weight an integer in ten-thousandths (the precision
        # semantic links were rounded to already), so the same links take about two thirds.
        """CREATE TABLE associations_compact (
            src    INTEGER NOT NULL,
            dst    INTEGER NOT NULL,
            kind   INTEGER NOT NULL CHECK (kind IN (0, 1, 2)),
            weight INTEGER NOT NULL CHECK (weight BETWEEN 0 AND 10000),
            PRIMARY KEY (src, dst, kind)
        ) WITHOUT ROWID""",
        "INSERT INTO associations_compact(src, dst, kind, weight) SELECT src, dst, "
        "CASE kind WHEN 'temporal' THEN 0 WHEN 'task' THEN 1 ELSE 2 END, "
        "CAST(round(min(max(weight, 0.0), 1.0) * 10000) AS INTEGER) FROM associations",
        # The cleanup trigger names the table: dropped while the table is swapped, then made again.
        "DROP TRIGGER atoms_cleanup_delete",
        "DROP TABLE associations",
        "ALTER TABLE associations_compact RENAME TO associations",
        "CREATE INDEX associations_dst ON associations(dst)",
        """CREATE TRIGGER atoms_cleanup_delete AFTER DELETE ON atoms BEGIN
            DELETE FROM vectors WHERE atom_num = old.num;
            DELETE FROM embed_queue WHERE atom_num = old.num;
            DELETE FROM associations WHERE src = old.num OR dst = old.num;
        END""",
    ),
)

M016_LLM_CALLS = Migration(
    16,
    "memory-LLM call outcomes by job, so `stats` and `doctor` in any process see them",
    (
        """CREATE TABLE llm_calls (
            job TEXT NOT NULL,
            outcome TEXT NOT NULL,
            count INTEGER NOT NULL,
            last_at REAL NOT NULL,
            last_error TEXT,
            PRIMARY KEY (job, outcome)
        )""",
    ),
)

M017_NOTES_WITHOUT_TEXT_INDEX = Migration(
    17,
    "session notes: duplicates found among the session's notes, not by an index over every note's text",
    (
        # UNIQUE (session_id, text) kept a second copy of every note's text (~50 bytes an observed
        # turn); store/sessions.py add_notes now skips a text the session has among its few notes.
        """CREATE TABLE session_notes_plain (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            category   TEXT NOT NULL CHECK (category IN ('decision', 'context', 'progress', 'issue', 'learnings')),
            text       TEXT NOT NULL,
            created_at REAL NOT NULL
        )""",
        "INSERT INTO session_notes_plain(id, session_id, category, text, created_at) "
        "SELECT id, session_id, category, text, created_at FROM session_notes",
        "DROP TABLE session_notes",
        "ALTER TABLE session_notes_plain RENAME TO session_notes",
        "CREATE INDEX session_notes_session ON session_notes(session_id, id)",
    ),
)

M018_EVENT_PREVIEWS = Migration(
    18,
    "events: atom_added rebuilds its preview from the atom; smaller kind and subject indexes",
    (
        # The 80-character preview of every atom_added was a second copy of the atom's text (~100
        # bytes an observed turn). A row marked derived_preview = 1 was appended without it; readers
        # rebuild it from the atom (store/events.py), or from event_previews, where it is kept just
        # before the atom is deleted. Rows appended before this version keep their preview inline.
        "ALTER TABLE events ADD COLUMN derived_preview INTEGER",
        """CREATE TABLE event_previews (
            event_id INTEGER PRIMARY KEY,
            preview  TEXT NOT NULL
        )""",
        # Part of the audit log: as append-only as the events themselves.
        """CREATE TRIGGER event_previews_append_only_update BEFORE UPDATE ON event_previews
           BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        """CREATE TRIGGER event_previews_append_only_delete BEFORE DELETE ON event_previews
           BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        # turn_observed and atom_added are most of the log (two or three an observed turn): a query
        # for either finds them by walking ids, so the kind index holds only the rarer kinds (~55
        # bytes a turn). Queries for those name the condition (store/events.py kind_sql) to use it.
        "DROP INDEX events_kind",
        "CREATE INDEX events_kind ON events(kind, id) WHERE kind NOT IN ('turn_observed', 'atom_added')",
        # Subjects ("atom:" and 32 hex digits, "session:" and its id) are found by their last 12
        # characters, then compared whole on the row (store/events.py subject_sql): ~40 bytes a turn.
        "DROP INDEX events_subject",
        "CREATE INDEX events_subject ON events(substr(subject, -12))",
    ),
)

M019_PEOPLE_AND_OWNERS = Migration(
    19,
    "people with bearer tokens and project memberships; every record names the person it belongs to",
    (
        # Only a SHA-256 of each token is kept: the token is shown once, when it is made.
        """CREATE TABLE people (
            name       TEXT PRIMARY KEY,
            role       TEXT NOT NULL CHECK (role IN ('admin', 'member')),
            token_hash TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL
        ) WITHOUT ROWID""",
        """CREATE TABLE project_members (
            person  TEXT NOT NULL,
            project TEXT NOT NULL,
            PRIMARY KEY (person, project)
        ) WITHOUT ROWID""",
        # Everything written before this version belongs to the store's one implicit owner (people.py).
        "ALTER TABLE atoms ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        # Sessions (with their buffer, notes and turns) and episodes are their owner's alone.
        "ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        "ALTER TABLE episodes ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        # A pending inference and a user-model field are about one person.
        """CREATE TABLE pending_reviews_owned (
            id          TEXT PRIMARY KEY,
            owner       TEXT NOT NULL DEFAULT 'local',
            field_path  TEXT NOT NULL,
            value       TEXT NOT NULL,
            evidence    TEXT NOT NULL DEFAULT '',
            confidence  REAL NOT NULL,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            expires_at  REAL NOT NULL,
            UNIQUE (owner, field_path, value)
        )""",
        "INSERT INTO pending_reviews_owned(id, field_path, value, evidence, confidence, created_at, updated_at, "
        "expires_at) SELECT id, field_path, value, evidence, confidence, created_at, updated_at, expires_at "
        "FROM pending_reviews",
        "DROP TABLE pending_reviews",
        "ALTER TABLE pending_reviews_owned RENAME TO pending_reviews",
        """CREATE TABLE user_model_owned (
            owner        TEXT NOT NULL DEFAULT 'local',
            field_path   TEXT NOT NULL,
            value        TEXT NOT NULL,
            source_class TEXT NOT NULL,
            updated_at   REAL NOT NULL,
            evidence     TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (owner, field_path)
        )""",
        "INSERT INTO user_model_owned(field_path, value, source_class, updated_at, evidence) "
        "SELECT field_path, value, source_class, updated_at, evidence FROM user_model",
        "DROP TABLE user_model",
        "ALTER TABLE user_model_owned RENAME TO user_model",
        # Facts are each person's own (they are the "what I told you about me" of their prompts).
        "ALTER TABLE facts ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        "DROP INDEX facts_target_key",
        "CREATE UNIQUE INDEX facts_target_key ON facts(owner, target, key) WHERE key IS NOT NULL",
        "DROP INDEX facts_target",
        "CREATE INDEX facts_target ON facts(owner, target, id)",
        # A private atom is found by its owner; shared ones by scope (the common single-owner store
        # needs neither: every row is 'local').
        "CREATE INDEX atoms_owner ON atoms(owner, scope)",
    ),
)


# The owner of the record an event is about, while that record is stored (NULL otherwise); a
# rejected guess's owner is in its event's detail, which each backend reads in its own JSON words.
def subject_owner_sql(detail_owner: str) -> str:
    """The backfill's owner expression for an event row, `detail_owner` reading `detail`'s owner."""
    return (
        "CASE WHEN substr(subject, 1, 5) = 'atom:' THEN "
        "(SELECT owner FROM atoms WHERE atoms.id = substr(events.subject, 6)) "
        "WHEN substr(subject, 1, 8) = 'session:' THEN "
        "(SELECT owner FROM sessions WHERE sessions.id = substr(events.subject, 9)) "
        "WHEN substr(subject, 1, 8) = 'episode:' THEN "
        "(SELECT owner FROM episodes WHERE episodes.id = substr(events.subject, 9)) "
        "WHEN substr(subject, 1, 5) = 'fact:' THEN "
        "(SELECT owner FROM facts WHERE CAST(facts.id AS TEXT) = substr(events.subject, 6)) "
        "WHEN substr(subject, 1, 8) = 'pending:' THEN COALESCE((SELECT owner FROM pending_reviews "
        f"WHERE pending_reviews.id = substr(events.subject, 9)), {detail_owner}) END"
    )


_SUBJECT_OWNER = subject_owner_sql("json_extract(detail, '$.owner')")

M020_EVENT_OWNERS = Migration(
    20,
    "events and chat-import keys name their owner",
    (
        # A person's stats, dashboard and export read their events by owner. Before, each event's owner
        # was found by joining its subject to the record, which missed the user model's events and
        # those of deleted records, and cost a member's dashboard ~2.7 x the operator's.
        "ALTER TABLE events ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        # Old events: the owner of their subject while it is stored, else the implicit owner (the
        # single-person store, with no people, has nothing to change). The append-only trigger is
        # lifted for this one statement, in this transaction.
        "DROP TRIGGER events_append_only_update",
        f"UPDATE events SET owner = {_SUBJECT_OWNER} WHERE subject IS NOT NULL AND EXISTS (SELECT 1 FROM people) "
        f"AND {_SUBJECT_OWNER} <> 'local'",
        """CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
           BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        # Only people's events: the implicit owner's (every event of a single person's store) cost
        # no index bytes; a person's query names the condition (store/events.py owned_events_sql).
        "CREATE INDEX events_owner ON events(owner, kind, ts) WHERE owner <> 'local'",
        # An import key is its owner's: another person's import of the same chat is not a duplicate.
        """CREATE TABLE chat_imports_owned (
            owner       TEXT NOT NULL DEFAULT 'local',
            key         TEXT NOT NULL,
            session_id  TEXT NOT NULL,
            imported_at REAL NOT NULL,
            PRIMARY KEY (owner, key)
        ) WITHOUT ROWID""",
        "INSERT INTO chat_imports_owned(owner, key, session_id, imported_at) "
        "SELECT COALESCE((SELECT owner FROM sessions WHERE sessions.id = chat_imports.session_id), 'local'), "
        "key, session_id, imported_at FROM chat_imports",
        "DROP TABLE chat_imports",
        "ALTER TABLE chat_imports_owned RENAME TO chat_imports",
    ),
)


# Rows hanging off a session take its owner: before this version a session id named one session.
def _owner_of_session(table: str) -> str:
    return f"COALESCE((SELECT owner FROM sessions WHERE sessions.id = {table}.session_id), 'local')"


# The next live atom of the same person's session (migration 14's rule, keyed as sessions now are).
_NEXT_IN_OWN_SESSION = (
    "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms "
    "WHERE session_id = old.session_id AND owner = old.owner AND status = 'live' AND num > old.num "
    "ORDER BY num LIMIT 1"
)

M021_SESSION_OWNERS = Migration(
    21,
    "sessions and episodes are keyed by owner and id",
    (
        # Hosts pick small session ids ("default", a date): in a team two people's hosts pick the same
        # one, and each must get a session, buffer, notes, transcript and episode of their own. Before,
        # the second person's turn was refused with an error that told them the id was taken.
        # The rows hanging off a session take its owner first, while a session id still names one.
        """CREATE TABLE session_buffer_owned (
            owner      TEXT NOT NULL DEFAULT 'local',
            session_id TEXT NOT NULL,
            seq        INTEGER NOT NULL,
            line       TEXT NOT NULL,
            PRIMARY KEY (owner, session_id, seq)
        ) WITHOUT ROWID""",
        "INSERT INTO session_buffer_owned(owner, session_id, seq, line) "
        f"SELECT {_owner_of_session('session_buffer')}, session_id, seq, line FROM session_buffer",
        "DROP TABLE session_buffer",
        "ALTER TABLE session_buffer_owned RENAME TO session_buffer",
        "ALTER TABLE session_notes ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        "ALTER TABLE session_turns ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        # A single person's store (no people) has only the implicit owner's rows: nothing to change.
        f"UPDATE session_notes SET owner = {_owner_of_session('session_notes')} WHERE EXISTS (SELECT 1 FROM people)",
        f"UPDATE session_turns SET owner = {_owner_of_session('session_turns')} WHERE EXISTS (SELECT 1 FROM people)",
        "DROP INDEX session_notes_session",
        "CREATE INDEX session_notes_session ON session_notes(owner, session_id, id)",
        "DROP INDEX session_turns_session",
        "CREATE INDEX session_turns_session ON session_turns(owner, session_id, id)",
        """CREATE TABLE sessions_owned (
            id               TEXT NOT NULL,
            project          TEXT,
            untrusted        INTEGER NOT NULL DEFAULT 0,
            untrusted_reason TEXT,
            turns            INTEGER NOT NULL DEFAULT 0,
            started_at       REAL NOT NULL,
            last_at          REAL NOT NULL,
            ended_at         REAL,
            frozen_facts     TEXT,
            resumed_turn     INTEGER,
            resume_gap_s     REAL,
            resumed_from     TEXT,
            predicted        TEXT,
            predicted_turn   INTEGER,
            relayed          INTEGER NOT NULL DEFAULT 0,
            owner            TEXT NOT NULL DEFAULT 'local',
            PRIMARY KEY (owner, id)
        )""",
        "INSERT INTO sessions_owned(id, project, untrusted, untrusted_reason, turns, started_at, last_at, ended_at, "
        "frozen_facts, resumed_turn, resume_gap_s, resumed_from, predicted, predicted_turn, relayed, owner) "
        "SELECT id, project, untrusted, untrusted_reason, turns, started_at, last_at, ended_at, frozen_facts, "
        "resumed_turn, resume_gap_s, resumed_from, predicted, predicted_turn, relayed, owner FROM sessions",
        "DROP TABLE sessions",
        "ALTER TABLE sessions_owned RENAME TO sessions",
        "CREATE INDEX sessions_last_at ON sessions(last_at)",
        # Episodes keep their `num` (the FTS rowid), so episodes_fts stays as it is; the triggers that
        # keep it went with the old table and are made again, unchanged.
        """CREATE TABLE episodes_owned (
            num          INTEGER PRIMARY KEY,
            id           TEXT NOT NULL UNIQUE,
            session_id   TEXT NOT NULL,
            project      TEXT,
            summary      TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('live', 'held')),
            source_class TEXT NOT NULL,
            turns        INTEGER NOT NULL,
            created_at   REAL NOT NULL,
            expires_at   REAL,
            scale        REAL,
            vec          BLOB,
            owner        TEXT NOT NULL DEFAULT 'local',
            UNIQUE (owner, session_id)
        )""",
        "INSERT INTO episodes_owned(num, id, session_id, project, summary, status, source_class, turns, created_at, "
        "expires_at, scale, vec, owner) SELECT num, id, session_id, project, summary, status, source_class, turns, "
        "created_at, expires_at, scale, vec, owner FROM episodes",
        "DROP TABLE episodes",
        "ALTER TABLE episodes_owned RENAME TO episodes",
        "CREATE INDEX episodes_created ON episodes(created_at)",
        *_EPISODES_FTS_TRIGGERS,
        # An atom's vector mixes in the memory said before it in its own person's session only.
        "DROP TRIGGER atoms_context_delete",
        "DROP TRIGGER atoms_context_update",
        f"""CREATE TRIGGER atoms_context_delete AFTER DELETE ON atoms
           WHEN old.session_id IS NOT NULL AND old.status = 'live' BEGIN
            {_NEXT_IN_OWN_SESSION};
        END""",
        f"""CREATE TRIGGER atoms_context_update AFTER UPDATE OF text, cue, status ON atoms
           WHEN old.session_id IS NOT NULL AND (old.status = 'live' OR new.status = 'live') BEGIN
            {_NEXT_IN_OWN_SESSION};
        END""",
    ),
)

MIGRATIONS = (
    M001_FOUNDATION,
    M002_ATOMS,
    M003_RECALL,
    M004_EMBEDDING_CACHE,
    M005_SESSIONS,
    M006_SALIENT_INDEX,
    M007_ANTICIPATION,
    M008_TURNS,
    M009_RELAYED,
    M010_EPISODE_SOURCE,
    M011_SESSION_ATOMS,
    M012_CHAT_IMPORTS,
    M013_PROJECT_NAMES,
    M014_SESSION_CONTEXT,
    M015_COMPACT_LINKS,
    M016_LLM_CALLS,
    M017_NOTES_WITHOUT_TEXT_INDEX,
    M018_EVENT_PREVIEWS,
    M019_PEOPLE_AND_OWNERS,
    M020_EVENT_OWNERS,
    M021_SESSION_OWNERS,
)
