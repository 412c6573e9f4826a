"""A harder hand-written corpus for the relevance benchmark (English, Chinese, mixed).

Same shape as bench/relevance_corpus.py: SESSIONS maps a session id to
(project, turns); `write_corpus` lays every session out as a Cursor agent
transcript so the real parser, pairing and indexer read it; turn keys are
"<session>:<turn index>".

A turn is (user, assistant) or (user, assistant, tools). `tools`, when present,
is a list of tool calls made during the assistant's reply, each a dict
{"tool": NAME, "args": {key: value}, "result": TEXT (optional)}. The writer puts
them after the first paragraph of the assistant text, in Cursor's form:

    [Tool call] Shell
    command: kubectl rollout undo deployment/checkout -n shop

    [Tool result]
    deployment.apps/checkout rolled back

Cursor's parser keeps a call's arguments (the indexer makes them keyword-only
points of that turn) and skips `[Tool result]` blocks, so nothing a query needs
lives only in a result; results are there for realism. Argument values are one
line each; blank lines inside results are dropped (a blank line ends a result).
User text is wrapped in <user_query> tags as real Cursor transcripts do.

Written by hand for convo-tui, modelled on the shape of public transcripts
(see README.md), with no text copied from any of them. Topics overlap on
purpose: several sessions each about databases, auth, CI, Docker, caching,
frontend, vector search, testing, Git, logging, performance and deployment,
in both languages, with shared identifiers (pool_size, maxmemory-policy,
pg_isready, healthcheck, lock, timeout, ...) used in different contexts, and
noise turns ("continue", "ok do it", "thanks", pasted logs, long outputs).
"""

from __future__ import annotations

import os
import textwrap
from datetime import datetime
from pathlib import Path
from typing import Any

Tool = dict[str, Any]


def _clean(text: str) -> str:
    return textwrap.dedent(text).strip("\n").rstrip()


def t(user: str, assistant: str, tools: list[Tool] | None = None) -> tuple:
    """One turn; the texts are dedented so they can be written indented below."""
    turn: tuple = (_clean(user), _clean(assistant))
    if tools:
        turn += ([{**tool, "result": _clean(tool.get("result", ""))} for tool in tools],)
    return turn


def sh(command: str, result: str = "") -> Tool:
    return {"tool": "Shell", "args": {"command": command}, "result": result}


def edit(path: str, change: str, result: str = "ok") -> Tool:
    return {"tool": "Edit", "args": {"path": path, "instructions": change}, "result": result}


def read(path: str, result: str = "") -> Tool:
    return {"tool": "Read", "args": {"path": path}, "result": result}


# session id -> (project, turns)
SESSIONS: dict[str, tuple[str, list[tuple]]] = {}

# ---------------------------------------------------------------- databases
SESSIONS["pg-deadlock"] = (
    "payments-api",
    [
        t(  # 0
            """
        [2025-03-04 02:00:01,114: INFO/MainProcess] Task payouts.run_batch[8c1e0f3a-77b2-4c51-9d0e-2f6b1a9c0d11] received
        [2025-03-04 02:00:01,220: INFO/ForkPoolWorker-3] batch 2025-03-04/07: 412 payouts, 16 threads
        [2025-03-04 02:00:02,871: INFO/ForkPoolWorker-3] payout 88213 -> bank OK (231 ms)
        [2025-03-04 02:00:03,002: INFO/ForkPoolWorker-5] payout 88219 -> bank OK (198 ms)
        [2025-03-04 02:00:03,540: INFO/ForkPoolWorker-7] payout 88224 -> bank OK (240 ms)
        [2025-03-04 02:00:04,551: ERROR/ForkPoolWorker-5] payout 88240 failed
        Traceback (most recent call last):
          File "/app/payments/tasks.py", line 88, in run_payout
            transfer(p.source_wallet_id, p.target_wallet_id, p.amount)
          File "/app/payments/transfer.py", line 41, in transfer
            cur.execute(UPDATE_BALANCE, (amount, target_id))
        psycopg2.errors.DeadlockDetected: deadlock detected
        DETAIL:  Process 48213 waits for ShareLock on transaction 9912834; blocked by process 48190.
        Process 48190 waits for ShareLock on transaction 9912831; blocked by process 48213.
        HINT:  See server log for query details.
        CONTEXT:  while updating tuple (1207,14) in relation "wallets"
        [2025-03-04 02:00:04,560: INFO/ForkPoolWorker-3] payout 88241 -> bank OK (187 ms)

        getting this since we added parallel payouts, maybe 1 in 50 fail like that
        """,
            """
        Two payout workers are updating the same pair of wallets in opposite order: worker A locks wallet 17 then
        wants 42, worker B locks 42 then wants 17, and Postgres kills one of them after deadlock_timeout (1s).

        The fix is a consistent lock order. In `transfer()` lock both rows up front, sorted by id:
        `SELECT id FROM wallets WHERE id IN (%s, %s) ORDER BY id FOR UPDATE`, then do the two UPDATEs. Any two
        transfers touching the same wallets will then queue instead of deadlocking. It's also worth retrying
        the transaction once or twice on DeadlockDetected, since it's a transient error by design.
        """,
        ),
        t(  # 1
            "how do i see whats blocking what right now on prod, before we ship the fix",
            """
        Use pg_blocking_pids() against pg_stat_activity; it lists every waiting backend with the pids holding
        the locks it waits on:

        [ran it read-only against the replica first, then primary]

        Right now pid 48190 (payout worker, `UPDATE wallets SET balance = balance - $1`) is blocking two others.
        It has been idle in transaction for 41 s, which points at the worker doing the HTTP call to the bank
        while still holding the row lock. That is a second problem: never keep a transaction open across a
        network call.
        """,
            [
                sh(
                    'psql "$PRIMARY_URL" -c "SELECT pid, pg_blocking_pids(pid) AS blocked_by, state, wait_event_type, '
                    'now() - xact_start AS xact_age, left(query, 60) FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0;"',
                    """
              pid  | blocked_by | state  | wait_event_type | xact_age | left
            -------+------------+--------+-----------------+----------+---------------------------------
             48213 | {48190}    | active | Lock            | 00:00:12 | UPDATE wallets SET balance = bal
             48230 | {48190}    | active | Lock            | 00:00:03 | UPDATE wallets SET balance = bal
            (2 rows)
            """,
                )
            ],
        ),
        t(  # 2
            "ok do it",
            """
        Done:

        - `payments/transfer.py`: both wallets are locked with one `SELECT ... ORDER BY id FOR UPDATE` before any update.
        - The bank API call moved out of the transaction: we commit a `payout_pending` row, call the bank, then
          update the status in a second short transaction.
        - `@retry(retry=retry_if_exception_type(DeadlockDetected), stop=stop_after_attempt(3), wait=wait_random(0.05, 0.3))`
          from tenacity around `transfer()`.

        The concurrency test (`tests/test_transfer_concurrency.py`, 200 random transfers across 10 wallets with
        16 threads) passes 20 times in a row; before the change it deadlocked within the first run.
        """,
            [
                edit(
                    "payments/transfer.py",
                    "lock both wallets sorted by id with SELECT ... FOR UPDATE; move bank call out of the transaction; tenacity retry on DeadlockDetected",
                ),
                sh("pytest tests/test_transfer_concurrency.py -q --count=20", "20 passed in 48.31s"),
            ],
        ),
        t(  # 3
            "can we also make requests give up instead of hanging forever when a row is locked",
            """
        Yes, set `lock_timeout`. It caps how long a statement waits for a lock (statement_timeout caps the whole
        statement, which is a different knob). Per transaction: `SET LOCAL lock_timeout = '3s'`. For every
        connection of the service, pass it in the DSN options: `connect_args={"options": "-c lock_timeout=3000"}`
        in `create_engine`. When it fires you get `LockNotAvailable` (SQLSTATE 55P03), which the API maps to a 409
        so the client can retry.
        """,
        ),
        t(  # 4
            "thanks!",
            "You're welcome. Summary: sorted FOR UPDATE locking, no network calls inside transactions, retry on deadlock, and lock_timeout=3s on every connection.",
        ),
    ],
)

SESSIONS["pg-too-many-clients"] = (
    "shopfront",
    [
        t(  # 0
            """
        we scaled the web deployment from 3 to 8 pods for the sale and now half the requests fail

        sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "db.internal" (10.0.3.12), port 5432 failed: FATAL:  sorry, too many clients already
        (Background on this error at: https://sqlalche.me/e/20/e3q8)
        """,
            """
        Let me look at how the engine is configured and how many workers each pod runs. Reading `shop/db.py`, `gunicorn.conf.py` and the deployment manifest.

        Count the connections: each pod runs gunicorn with 4 workers, and each worker has its own SQLAlchemy pool
        with `pool_size=10, max_overflow=20`. That's up to 30 connections per worker, 120 per pod, 960 for 8 pods,
        against `max_connections = 100` on the RDS instance. With 3 pods you were just lucky that overflow was
        rarely used.

        Options, from quickest to best:
        1. lower the pool per worker (`pool_size=2, max_overflow=3`): 8 pods x 4 workers x 5 = 160, still too many;
        2. raise max_connections (costs memory per backend, and the instance class caps it);
        3. put PgBouncer in transaction pooling mode in front of Postgres, so hundreds of client connections share
           ~20 server connections. That's the real fix for horizontally scaled web tiers.
        """,
        ),
        t(  # 1
            "set up pgbouncer then",
            """
        Added a pgbouncer Deployment + Service (`pgbouncer.db.svc:6432`) with this config:

        ```ini
        [databases]
        shop = host=db.internal port=5432 dbname=shop

        [pgbouncer]
        listen_port = 6432
        auth_type = scram-sha-256
        auth_file = /etc/pgbouncer/userlist.txt
        pool_mode = transaction
        default_pool_size = 20
        max_client_conn = 1000
        server_idle_timeout = 60
        ```

        Caveat with `pool_mode = transaction`: session state doesn't survive between transactions, so no
        `SET` without `LOCAL`, no advisory session locks, no `LISTEN/NOTIFY`, and server-side prepared statements
        need care. The app's DATABASE_URL now points at port 6432.
        """,
            [
                {"tool": "Write", "args": {"path": "deploy/pgbouncer/pgbouncer.ini"}, "result": "written"},
                sh("kubectl apply -f deploy/pgbouncer/ -n db", "deployment.apps/pgbouncer created\nservice/pgbouncer created"),
            ],
        ),
        t(  # 2
            """
        the async service (the one using asyncpg) now fails with

        asyncpg.exceptions.DuplicatePreparedStatementError: prepared statement "__asyncpg_stmt_3__" already exists
        HINT: NOTE: pgbouncer with pool_mode set to "transaction" or "statement" does not support prepared statements properly.
        """,
            """
        That's the prepared-statement caveat. asyncpg prepares and caches every statement per connection, but with
        transaction pooling the next transaction can land on a different server connection.

        Either disable the caches on the client:
        `create_async_engine(url, connect_args={"statement_cache_size": 0, "prepared_statement_cache_size": 0})`
        (the second one is SQLAlchemy's asyncpg dialect cache), or upgrade PgBouncer to 1.21+ and set
        `max_prepared_statements = 200`, which makes it track protocol-level prepared statements itself.
        I'd do the client setting now and the upgrade later.
        """,
        ),
        t(  # 3
            "continue",
            """
        Set `statement_cache_size=0` and `prepared_statement_cache_size=0` in the async engine and re-ran the
        locust profile against staging with 8 pods:

        ```
        Type  Name                      # reqs  # fails |  Avg   Min   Max   Med |  req/s
        GET   /api/products/[id]         48210   0(0.00%) |   38    11   612    31 |  401.7
        GET   /api/cart                  20311   0(0.00%) |   44    14   701    36 |  169.2
        POST  /api/checkout               3120   0(0.00%) |  212    88  1390   180 |   26.0
        Aggregated                       71641   0(0.00%) |   52    11  1390    34 |  596.9
        ```

        Postgres shows 20-23 server connections from pgbouncer during the whole run, no "too many clients".
        """,
            [
                edit("services/async_api/db.py", "connect_args statement_cache_size=0 prepared_statement_cache_size=0"),
                sh(
                    "locust -f loadtest/shop.py --headless -u 400 -r 40 -t 5m --host https://staging.shop.example.com",
                    "... (summary above)",
                ),
            ],
        ),
    ],
)

SESSIONS["zh-mysql-emoji"] = (
    "crm-backend",
    [
        t(  # 0
            """
        用户昵称里有 emoji 的时候插入报错：
        java.sql.SQLException: Incorrect string value: '\\xF0\\x9F\\x98\\x82\\xE5\\xB0...' for column 'nickname' at row 1
        表是 utf8 的，怎么改
        """,
            """
        MySQL 里的 utf8 其实是 utf8mb3，每个字符最多 3 个字节，而 emoji 是 4 字节字符，所以存不进去。需要把表和列改成 utf8mb4：

        ```sql
        ALTER TABLE customer CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
        ```

        JDBC 连接串里也把 `characterEncoding=UTF-8` 带上。改完重新插入带 emoji 的昵称试一下。
        """,
        ),
        t(  # 1
            "改了表还是报错，一模一样的 Incorrect string value",
            """
        表已经是 utf8mb4 了，那问题在连接这一层：服务端的 character_set_server 还是 utf8，连接建立时协商成了 utf8mb3，客户端发过来的 4 字节字符在连接上就被拒了。

        查一下变量：

        果然 `character_set_client / connection / results` 都是 utf8mb3。两种改法：
        1. my.cnf 里 `[mysqld] character-set-server=utf8mb4`、`collation-server=utf8mb4_unicode_ci`，重启 MySQL；
        2. 不想动数据库的话，在 Hikari 里配 `connection-init-sql: SET NAMES utf8mb4`，每个连接建立后执行一次。

        我先用第 2 种改了 application-prod.yml。
        """,
            [
                sh(
                    "mysql -h 10.1.2.30 -u crm -p -e \"SHOW VARIABLES LIKE 'character_set%';\"",
                    """
            character_set_client      utf8mb3
            character_set_connection  utf8mb3
            character_set_database    utf8mb4
            character_set_results     utf8mb3
            character_set_server      utf8mb3
            """,
                ),
                edit(
                    "src/main/resources/application-prod.yml", "spring.datasource.hikari.connection-init-sql: SET NAMES utf8mb4"
                ),
            ],
        ),
        t(  # 2
            "好了 可以了 谢谢",
            """
        不客气。再提醒一点：utf8mb4 下每个字符按 4 字节算，老版本 MySQL（5.6 / COMPACT 行格式）给 varchar(255) 建索引会报
        `Specified key was too long; max key length is 767 bytes`。遇到的话把索引列改成 varchar(191)，或者用 DYNAMIC 行格式 + innodb_large_prefix。MySQL 8 默认没这个问题。
        """,
        ),
    ],
)

SESSIONS["zh-slow-query"] = (
    "report-service",
    [
        t(  # 0
            """
        订单列表接口要 8 秒，翻到后面几页更慢。SQL 大概是
        select * from orders where shop_id = ? order by created_at desc limit 20 offset 100000
        """,
            """
        我先看一下这个接口的代码、orders 表的结构和现有的索引。

        两个问题叠在一起：

        1. 深分页：`offset 100000` 意味着数据库要先排好序、扫过前 100020 行再丢掉 10 万行，页数越靠后越慢；
        2. 排序可能没走索引：如果只有 shop_id 的单列索引，就得把这个店铺的所有订单取出来再排序。

        先看执行计划：`EXPLAIN (ANALYZE, BUFFERS) select ...`，把结果贴给我。
        """,
        ),
        t(  # 1
            """
        Limit  (cost=912331.02..912331.07 rows=20 width=412) (actual time=7912.4..7912.5 rows=20 loops=1)
          ->  Sort  (cost=911981.02..924012.33 rows=4812331 width=412) (actual time=7801.2..7899.6 rows=100020 loops=1)
                Sort Key: created_at DESC
                Sort Method: external merge  Disk: 512000kB
                ->  Seq Scan on orders  (cost=0.00..402113.31 rows=4812331 width=412) (actual time=0.03..2210.7 rows=4812331 loops=1)
                      Filter: (shop_id = 1187)
        Planning Time: 0.2 ms
        Execution Time: 7933.1 ms
        """,
            """
        很清楚：全表顺序扫描（Seq Scan）了 481 万行，然后在磁盘上做外部归并排序（external merge，用了 500MB 临时文件）。

        建一个联合索引，顺序和查询一致：

        ```sql
        CREATE INDEX CONCURRENTLY idx_orders_shop_created ON orders (shop_id, created_at DESC);
        ANALYZE orders;
        ```

        有了它，数据库可以直接按索引顺序取某个店铺最新的订单，不需要排序。
        """,
        ),
        t(  # 2
            "建索引会不会锁表？线上不能停",
            """
        普通的 CREATE INDEX 会拿 SHARE 锁，建索引期间所有写入（insert/update/delete）都会被阻塞，481 万行大概要几分钟，线上不能这么做。

        用 `CREATE INDEX CONCURRENTLY`：不阻塞写入，代价是要扫两遍表、时间更长。注意：
        - 不能放在事务里执行（迁移工具里要单独处理，比如 alembic 的 autocommit_block）；
        - 如果中途失败，会留下一个 INVALID 状态的索引，要先 `DROP INDEX CONCURRENTLY idx_orders_shop_created` 再重建；
        - 建之前确认没有长事务，它要等所有已有事务结束。
        """,
        ),
        t(  # 3
            "继续",
            """
        索引建好了（用时 6 分 40 秒，期间写入正常）。接着把分页改成游标分页（keyset pagination）：

        ```python
        q = (select(Order).where(Order.shop_id == shop_id)
             .order_by(Order.created_at.desc(), Order.id.desc()).limit(20))
        if cursor:
            created_at, last_id = decode_cursor(cursor)
            q = q.where(tuple_(Order.created_at, Order.id) < (created_at, last_id))
        ```

        接口返回 `next_cursor`，前端的"下一页"带上它。压测结果：第 1 页 35ms，原来第 5000 页的位置现在也是 40ms 左右；老的 offset 接口保留一个月后下线。
        """,
            [
                sh(
                    "psql $REPORT_DB -c 'CREATE INDEX CONCURRENTLY idx_orders_shop_created ON orders (shop_id, created_at DESC);'",
                    "CREATE INDEX",
                ),
                edit("app/api/orders.py", "keyset pagination with next_cursor"),
            ],
        ),
    ],
)

SESSIONS["alembic-autogen"] = (
    "payments-api",
    [
        t(  # 0
            "alembic revision --autogenerate gives me an empty migration (just pass in upgrade) even though I added refund_reason to the Refund model",
            """
        Autogenerate compares `target_metadata` in `migrations/env.py` with the database. Yours is
        `target_metadata = None`, so alembic sees no models at all. Point it at your declarative Base and make
        sure every models module is imported before that line, otherwise their tables never register on the
        metadata:

        ```python
        from app.db import Base
        import app.models  # noqa: F401  (registers every table)
        target_metadata = Base.metadata
        ```
        """,
            [
                read("migrations/env.py", "target_metadata = None"),
                sh(
                    'alembic revision --autogenerate -m "add refund_reason"',
                    "Generating migrations/versions/7f3c2a_add_refund_reason.py ...  done",
                ),
            ],
        ),
        t(  # 1
            "ok now it picked up refund_reason but it ALSO wants to drop the audit_log table and two partitions??",
            """
        Those tables exist in the database but not in your metadata: audit_log is created by the DBA's trigger
        script and its partitions by pg_partman, so from alembic's point of view they are "removed". Tell
        autogenerate to ignore them with an `include_object` hook in env.py:

        ```python
        IGNORED = {"audit_log"}
        def include_object(obj, name, type_, reflected, compare_to):
            if type_ == "table" and (name in IGNORED or name.startswith("audit_log_p")):
                return False
            return True

        context.configure(..., target_metadata=target_metadata, include_object=include_object)
        ```
        """,
        ),
        t(  # 2
            "k",
            """
        Added the hook and regenerated. The new revision only contains:

        ```python
        def upgrade():
            op.add_column("refunds", sa.Column("refund_reason", sa.String(length=200), nullable=True))

        def downgrade():
            op.drop_column("refunds", "refund_reason")
        ```

        `alembic upgrade head` on a fresh test database and `alembic check` both pass.
        """,
            [
                edit("migrations/env.py", "include_object hook ignoring audit_log and its partitions"),
                sh("alembic check", "No new upgrade operations detected."),
            ],
        ),
    ],
)

# ---------------------------------------------------------------- auth
SESSIONS["oauth-google"] = (
    "shopfront",
    [
        t(  # 0
            """
        google sign in is broken on prod. after picking the account google shows
        "Error 400: redirect_uri_mismatch  The redirect URI in the request, http://shop.example.com/auth/google/callback, does not match the ones authorized for the OAuth client."
        works on localhost
        """,
            """
        Look at the scheme in the message: the app sends `http://...` while the console only authorizes
        `https://shop.example.com/auth/google/callback`. Google compares the redirect URI byte for byte (scheme, host,
        path, trailing slash).

        The app builds the URL with `request.build_absolute_uri()`, and behind the load balancer it sees plain HTTP.
        Tell Django to trust the proxy's header:

        ```python
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
        USE_X_FORWARDED_HOST = True
        ```

        (Only safe because the ALB always sets X-Forwarded-Proto.) After deploying, the callback URL is built
        with https and matches.
        """,
        ),
        t(  # 1
            "fixed thanks. BUT now on safari (only safari!) after google login you land back on the login page again, like a loop",
            """
        Let me reproduce it first. I'll look at the HAR you attached and at the OAuth views in `shop/auth/google.py`.

        A login loop means the callback can't find the session it started: the OAuth `state` is stored in the
        session cookie when the user clicks "Sign in", and the callback compares it.

        Checking the network tab from your HAR: the login starts on `www.shop.example.com` but the authorized
        redirect URI is on the apex `shop.example.com`. The session cookie was set for `www.shop.example.com` only,
        so on the callback there is no session, the state check fails, and the view redirects to /login again.
        Chrome happened to work because most users there come in via the apex domain from bookmarks; Safari users
        come from the iOS share sheet with www.

        Fix: one canonical host (redirect www to apex before login starts) and/or
        `SESSION_COOKIE_DOMAIN = ".shop.example.com"` so the cookie covers both.
        """,
        ),
        t(  # 2
            "yes do it",
            """
        Done: `CanonicalHostMiddleware` redirects any `www.` request to the apex with a 301 (first in MIDDLEWARE),
        and `SESSION_COOKIE_DOMAIN` / `CSRF_COOKIE_DOMAIN` are set to `.shop.example.com`. Tested on Safari 17 on
        macOS and iOS simulator: login completes and lands on /account.
        """,
            [
                edit("shop/settings/prod.py", "SESSION_COOKIE_DOMAIN and CSRF_COOKIE_DOMAIN = '.shop.example.com'"),
                edit("shop/middleware.py", "CanonicalHostMiddleware: 301 from www to apex"),
            ],
        ),
        t(  # 3
            "can we add sign in with apple later? what's involved",
            """
        Mostly the same flow, with two Apple quirks: the client secret is not a static string but a JWT you sign
        with your ES256 key from the Apple developer account (valid at most 6 months, so it needs rotation), and
        Apple sends the callback as a form POST (`response_mode=form_post`), so the callback view must accept POST
        and be CSRF-exempt, and the user's name is only sent on the very first login.
        """,
        ),
    ],
)

SESSIONS["django-csrf"] = (
    "shopfront",
    [
        t(  # 0
            """
        after upgrading django 3.2 -> 4.2 the admin login on admin.shop.example.com fails:

        Forbidden (403)
        CSRF verification failed. Request aborted.
        Reason given for failure:
            Origin checking failed - https://admin.shop.example.com does not match any trusted origins.
        """,
            """
        Django 4.0 started checking the `Origin` header against `CSRF_TRUSTED_ORIGINS`, and since 4.0 the entries
        must include the scheme. Your settings have `CSRF_TRUSTED_ORIGINS = ["admin.shop.example.com"]` from the
        3.2 days; change it to:

        ```python
        CSRF_TRUSTED_ORIGINS = ["https://admin.shop.example.com", "https://shop.example.com"]
        ```
        """,
        ),
        t(  # 1
            "ok admin works. the react app that posts to /api/cart with fetch also gets 403 now",
            """
        For fetch calls Django wants the token in a header: read the `csrftoken` cookie and send it as
        `X-CSRFToken`, with `credentials: "include"` so the session cookie goes along. That only works if
        `CSRF_COOKIE_HTTPONLY = False` (the default); someone set it to True last month, so JS can't read it.
        """,
        ),
        t(  # 2
            "continue",
            """
        Set `CSRF_COOKIE_HTTPONLY = False` again and added a small wrapper used by every mutating call:

        ```ts
        export async function apiFetch(path: string, init: RequestInit = {}) {
          const token = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/)?.[1] ?? "";
          return fetch(path, {
            ...init,
            credentials: "include",
            headers: { "X-CSRFToken": decodeURIComponent(token), "Content-Type": "application/json", ...init.headers },
          });
        }
        ```

        cart, checkout and wishlist now use it; the Cypress cart spec passes.
        """,
        ),
    ],
)

SESSIONS["zh-jwt-refresh"] = (
    "admin-console",
    [
        t(  # 0
            "前端 token 过期以后用户直接被踢回登录页，体验很差，想做成无感刷新",
            """
        常见做法是 access token 短（比如 15 分钟）+ refresh token 长（7 天），在 axios 响应拦截器里处理 401：

        ```js
        let refreshing = null
        api.interceptors.response.use(r => r, async err => {
          const { config, response } = err
          if (response?.status !== 401 || config._retry) throw err
          config._retry = true
          refreshing ??= axios.post('/auth/refresh').finally(() => { refreshing = null })
          const { data } = await refreshing
          store.setAccessToken(data.access_token)
          config.headers.Authorization = `Bearer ${data.access_token}`
          return api(config)
        })
        ```

        关键点是 `refreshing` 这个共享的 promise：页面同时发出 5 个请求都 401 时，只刷新一次，其他请求排队等它。刷新本身失败（refresh token 也过期）才跳登录页。
        """,
        ),
        t(  # 1
            """
        服务端偶尔报错，用户刚登录就 401：
        jwt.exceptions.ImmatureSignatureError: The token is not yet valid (iat)
        """,
            """
        这是时钟问题：签发 token 的认证服务和校验 token 的业务服务时间不一致，业务服务的时间比签发方慢了几秒，看到 `iat` 在"未来"，PyJWT 就拒绝了。

        1. 根本解决：所有机器开 NTP（chrony），检查 `chronyc tracking` 的偏差；
        2. 校验时留一点余量：`jwt.decode(token, key, algorithms=["RS256"], leeway=10)`，允许 10 秒误差。
        """,
        ),
        t(  # 2
            "好的",
            "好。顺便建议 refresh token 做轮换（每次刷新都发新的 refresh token，旧的作废），如果发现旧的被再次使用，就说明可能泄露了，直接吊销这个用户的所有会话。",
        ),
    ],
)

SESSIONS["api-keys"] = (
    "payments-api",
    [
        t(  # 0
            "we store merchant API keys in plaintext in the api_keys table. what's the right way",
            """
        Store only a hash, like passwords, but you don't need bcrypt: API keys are long random strings (32 bytes from
        `secrets.token_urlsafe`), so a single SHA-256 is enough and keeps lookups fast.

        Layout: the key looks like `pk_live_9fQ2...`; store `prefix` (first 12 chars, indexed, also shown in the
        dashboard so people can tell keys apart) and `key_hash`. Show the full key exactly once when it's created.
        """,
        ),
        t(  # 1
            "write the migration + the verification code",
            """
        Migration adds `prefix varchar(16)`, `key_hash bytea`, `last_used_at`, and backfills hashes from the old
        column before dropping it. Verification:

        ```python
        def verify_api_key(raw: str) -> ApiKey | None:
            row = db.scalar(select(ApiKey).where(ApiKey.prefix == raw[:12], ApiKey.revoked_at.is_(None)))
            if row is None:
                return None
            if not hmac.compare_digest(row.key_hash, hashlib.sha256(raw.encode()).digest()):
                return None
            return row
        ```

        `hmac.compare_digest` keeps the comparison constant-time.
        """,
            [
                {"tool": "Write", "args": {"path": "migrations/versions/a41d_hash_api_keys.py"}, "result": "written"},
                edit("app/auth/api_keys.py", "verify_api_key with prefix lookup and hmac.compare_digest"),
            ],
        ),
        t(  # 2
            "and if a merchant leaks a key on github, how do they rotate without breaking their integration",
            """
        Allow two active keys per merchant: "roll key" creates a new key and sets `expires_at = now() + 24h` on the
        old one (or immediately, if they tick "compromised"). They deploy the new key, the old one dies on its own.
        Every use writes `last_used_at`, so the dashboard can show whether the old key is still being called.
        Also register the `pk_live_` prefix with GitHub secret scanning so leaks get reported to you.
        """,
        ),
    ],
)

SESSIONS["zh-wechat-login"] = (
    "mini-program",
    [
        t(  # 0
            """
        小程序登录，后端调 code2Session 返回
        {"errcode":40163,"errmsg":"code been used, rid: 6523f1a2-..."}
        不是每次都有，大概三分之一
        """,
            """
        wx.login 拿到的 code 只能用一次，5 分钟有效。40163 说明同一个 code 被换了两次，常见原因：

        - 前端在 onLaunch 和页面 onLoad 里各调了一次登录接口，用的是同一个 code；
        - 开发者工具热重载时重复执行；
        - 后端请求超时后自动重试，第一次其实已经成功了。

        看你们的代码是第一种：app.js 和 pages/index 都调用了 `login()`。改成 app 里只登录一次，页面等 `app.loginReady` 这个 promise。
        """,
        ),
        t(  # 1
            "session_key 能不能直接返回给前端，前端解密手机号要用",
            """
        不能。session_key 是解密用户敏感数据的密钥，返回给前端等于泄露。正确做法：前端把 encryptedData 和 iv 发给后端，后端用缓存里的 session_key 解密，只返回需要的字段。

        登录态用你们自己的 token（比如 JWT，里面放 openid 对应的 user_id），不要把 openid、session_key 当作登录态。新版本的手机号获取用 getPhoneNumber 的 code 换，直接调 phonenumber.getPhoneNumber，不需要自己解密。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- CI
SESSIONS["gha-postgres-service"] = (
    "shopfront",
    [
        t(  # 0
            """
        Run pytest -q
        ........................EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE
        ==================================== ERRORS ====================================
        _________________ ERROR at setup of test_cart_add_item_twice __________________
        ../../../.venv/lib/python3.12/site-packages/django/db/backends/base/base.py:275: in ensure_connection
            self.connect()
        ../../../.venv/lib/python3.12/site-packages/psycopg2/__init__.py:122: in connect
            conn = _connect(dsn, connection_factory=connection_factory, **kwasync)
        E   psycopg2.OperationalError: connection to server at "localhost" (::1), port 5432 failed: Connection refused
        E   	Is the server running on that host and accepting TCP/IP connections?
        =========================== short test summary info ============================
        ERROR tests/test_cart.py::test_cart_add_item_twice - psycopg2.OperationalError
        ERROR tests/test_cart.py::test_cart_remove - psycopg2.OperationalError
        ... 47 more
        24 passed, 49 errors in 19.02s
        Error: Process completed with exit code 1.

        tests pass locally, in github actions every db test errors like this. the workflow has a postgres service
        """,
            """
        Two things in `.github/workflows/ci.yml`:

        1. The `postgres` service has no health check, so the steps start while Postgres is still initialising.
           Add `options: --health-cmd pg_isready --health-interval 5s --health-timeout 5s --health-retries 10`; the
           runner then waits until the container is healthy.
        2. The service has no `ports:` mapping, and "localhost" resolves to `::1` first. Map `5432:5432` and use
           `127.0.0.1` in `DATABASE_URL`.
        """,
            [read(".github/workflows/ci.yml", "services:\n  postgres:\n    image: postgres:16")],
        ),
        t(  # 1
            "green now!! but the job takes 11 minutes, can we speed it up",
            """
        From the timing of the last run: 2m40s installing dependencies, 7m50s tests, the rest checkout/setup.

        - `actions/setup-python` with `cache: pip` (keyed on requirements*.txt) removes most of the install time;
        - `pytest -n auto` with pytest-xdist; each worker needs its own database, which pytest-django does for you
          (`test_shop_gw0`, `test_shop_gw1`, ...);
        - the 14 Playwright tests go to a separate job that only runs on pushes to main.
        """,
        ),
        t(  # 2
            "ok",
            """
        Updated workflow:

        ```yaml
        jobs:
          test:
            runs-on: ubuntu-24.04
            services:
              postgres:
                image: postgres:16
                env: { POSTGRES_PASSWORD: postgres, POSTGRES_DB: shop }
                ports: ["5432:5432"]
                options: >-
                  --health-cmd pg_isready --health-interval 5s
                  --health-timeout 5s --health-retries 10
            steps:
              - uses: actions/checkout@v4
              - uses: actions/setup-python@v5
                with: { python-version: "3.12", cache: pip }
              - run: pip install -r requirements-dev.txt
              - run: pytest -n auto -m "not e2e"
                env: { DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:5432/shop" }
          e2e:
            if: github.ref == 'refs/heads/main'
            needs: test
        ```

        First run with a warm cache: 3m12s.
        """,
            [edit(".github/workflows/ci.yml", "pip cache, xdist, e2e job only on main")],
        ),
        t(  # 3
            "can the matrix run 3.11 and 3.12 but only deploy once",
            """
        Keep the matrix on the test job and make deploy a separate job with `needs: test`: it runs once, after every
        matrix leg passed. If you'd rather keep a step inside the matrix, guard it with
        `if: matrix.python-version == '3.12' && github.ref == 'refs/heads/main'`.
        """,
        ),
    ],
)

SESSIONS["gha-fork-secrets"] = (
    "ragsearch",
    [
        t(  # 0
            "PRs from forks fail at the integration step that calls the embeddings API. OPENAI_API_KEY is just empty there. works for PRs from branches",
            """
        That's GitHub's design: workflows triggered by `pull_request` from a fork get no repository secrets (and a
        read-only GITHUB_TOKEN), so a stranger's PR can't print your keys.

        Make the step conditional and give fork PRs something useful instead:

        ```yaml
        - name: integration (live API)
          if: ${{ env.OPENAI_API_KEY != '' }}
          env: { OPENAI_API_KEY: "${{ secrets.OPENAI_API_KEY }}" }
          run: pytest tests/integration -m live
        - name: integration (recorded)
          if: ${{ env.OPENAI_API_KEY == '' }}
          run: pytest tests/integration --record-mode=none
        ```

        The recorded run replays the vcrpy cassettes in tests/cassettes.
        """,
        ),
        t(  # 1
            "someone suggested pull_request_target so forks get the secrets. good idea?",
            """
        Not with your workflow. `pull_request_target` runs in the context of the base repository: it has the
        secrets and a write-scoped token. If such a workflow checks out the PR's head and runs its code (pip
        install of their setup.py, their tests, their conftest.py), the fork author runs arbitrary code with your
        secrets. That's the classic "pwn request".

        It's fine only for jobs that never execute PR code (labelling, commenting). For tests, stay on
        `pull_request` and let a maintainer re-run with secrets by pushing the branch to the main repo.
        """,
        ),
    ],
)

SESSIONS["zh-gitlab-dind"] = (
    "infra",
    [
        t(  # 0
            """
        Running with gitlab-runner 16.9.1 (782c6ecb)
          on k8s-runner-shared 7xKz2qP1, system ID: r_3fA0c1
        Preparing the "kubernetes" executor
        Using Kubernetes namespace: gitlab-runner
        Using Kubernetes executor with image docker:24 ...
        Getting source from Git repository
        Fetching changes with git depth set to 20...
        Checking out 5f1e9a2c as detached HEAD (ref is main)...
        Executing "step_script" stage of the job script
        $ docker build -t $CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA .
        error during connect: Post "http://docker:2375/v1.24/build?...": dial tcp: lookup docker on 10.96.0.10:53: no such host
        Cannot connect to the Docker daemon at tcp://docker:2375. Is the docker daemon running?
        Cleaning up project directory and file based variables
        ERROR: Job failed: command terminated with exit code 1

        GitLab CI 构建镜像这一步一直失败，上面是日志
        """,
            """
        job 里用 docker 命令需要一个 docker daemon，一般是 docker-in-docker（dind）服务。检查三处：

        1. `.gitlab-ci.yml` 里要有 `services: [docker:24-dind]`；
        2. dind 默认开 TLS，端口是 2376：`DOCKER_HOST: tcp://docker:2376`、`DOCKER_TLS_CERTDIR: "/certs"`；
        3. runner 必须是 privileged，dind 才能起来：config.toml 里 `[runners.docker] privileged = true`。
        """,
        ),
        t(  # 1
            "runner 是我们自己在 k8s 上跑的 kubernetes executor，不是 docker executor",
            """
        kubernetes executor 也可以跑 dind，要在 runner 配置里开 `[runners.kubernetes] privileged = true`，而且 service 通过 localhost 访问：`DOCKER_HOST: tcp://localhost:2376`。

        不过给集群里的 pod 开特权有安全风险。如果只是构建镜像，更推荐 kaniko：不需要 docker daemon、不需要特权，直接在用户态构建并推送镜像。
        """,
        ),
        t(  # 2
            "用 kaniko 吧",
            """
        改好了：

        ```yaml
        build-image:
          stage: build
          image:
            name: gcr.io/kaniko-project/executor:v1.23.2-debug
            entrypoint: [""]
          script:
            - /kaniko/executor
              --context "$CI_PROJECT_DIR"
              --dockerfile "$CI_PROJECT_DIR/Dockerfile"
              --destination "$CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA"
              --cache=true
        ```

        registry 的认证写在 /kaniko/.docker/config.json，用 CI_REGISTRY_USER / CI_REGISTRY_PASSWORD 生成。
        """,
            [edit(".gitlab-ci.yml", "build-image job with kaniko executor instead of docker:dind")],
        ),
        t(  # 3
            "镜像缓存好像没生效，每次都是全量构建 12 分钟",
            """
        两个原因：

        1. `--cache=true` 需要一个可写的缓存仓库，默认是 `$CI_REGISTRY_IMAGE/cache`，你们的 deploy token 对这个路径没有写权限，日志里有 `Error uploading layer to cache` 的警告。加上 `--cache-repo "$CI_REGISTRY_IMAGE/kaniko-cache"` 并给 token 写权限；
        2. Dockerfile 里 `COPY . .` 在 `RUN pip install -r requirements.txt` 之前，任何代码改动都会让依赖层失效。先 COPY requirements.txt、装依赖，再 COPY 代码。

        改完第二次构建 1 分 50 秒。
        """,
            [
                sh(
                    "/kaniko/executor --context . --destination $CI_REGISTRY_IMAGE:test --cache=true --cache-repo $CI_REGISTRY_IMAGE/kaniko-cache --no-push",
                    "INFO[0003] Using caching version of cmd: RUN pip install -r requirements.txt",
                )
            ],
        ),
    ],
)

SESSIONS["ci-coverage"] = (
    "convo-sync",
    [
        t(  # 0
            """
        the coverage job fails now and I didn't change any tests

        FAIL Required test coverage of 80% not reached. Total coverage: 79.12%
        Coverage failure: total of 79 is less than fail-under=80
        """,
            """
        The total dropped because new files got measured, not because tests got worse. Your
        `[tool.coverage.run]` has no `source`, so coverage measures every imported module under the repo, and
        yesterday's commit vendored `vendor/tomlkit_compat/` (1,900 statements, mostly untested).

        Let me get the per-file table to confirm.
        """,
            [sh("pytest --cov=convo_sync --cov-report=term-missing:skip-covered -q", "TOTAL 11873 2480 79%")],
        ),
        t(  # 1
            "yes",
            """
        Per-file report (only files below 100%):

        ```
        Name                                        Stmts   Miss  Cover   Missing
        -------------------------------------------------------------------------
        convo_sync/cli.py                             412     31    92%   88-97, 301-322
        convo_sync/remote.py                          388     44    89%   140-171, 402-410
        convo_sync/merge.py                           520     12    98%   77, 290-301
        vendor/tomlkit_compat/__init__.py              41     41     0%   1-88
        vendor/tomlkit_compat/parser.py              1204   1150     4%   12-1630
        vendor/tomlkit_compat/items.py                655    620     5%   9-990
        -------------------------------------------------------------------------
        TOTAL                                       11873   2480    79%
        ```

        Without the vendored package the total is 92.8%.
        """,
        ),
        t(  # 2
            "exclude vendor from coverage",
            """
        In pyproject.toml:

        ```toml
        [tool.coverage.run]
        source = ["convo_sync"]
        omit = ["vendor/*", "*/_version.py"]

        [tool.coverage.report]
        fail_under = 80
        ```

        CI passes with 92.8%. I kept `--cov-fail-under` out of the pytest command line so there's one place that sets the threshold.
        """,
            [edit("pyproject.toml", "[tool.coverage.run] source and omit vendor/*")],
        ),
    ],
)

SESSIONS["zh-gha-release"] = (
    "ragsearch",
    [
        t(  # 0
            """
        release.yml 写了 on: push: tags: ['v*']，但是打 tag 之后 release workflow 根本没触发。
        tag 是另一个 workflow（bump-version）里用 git push --tags 推上去的
        """,
            """
        原因在这里：bump-version 这个 workflow 用的是默认的 `GITHUB_TOKEN` 推的 tag。GitHub 规定，用 GITHUB_TOKEN 触发的事件（push、tag 等）不会再触发新的 workflow run，防止无限递归。你手动在本地 push tag 就会触发。

        解决办法：
        1. bump-version 里改用 PAT 或 GitHub App 的 token 来 push；
        2. 或者不依赖 tag 事件，在 bump-version 最后用 `workflow_call` / `gh workflow run release.yml` 直接调用 release。
        """,
        ),
        t(  # 1
            "用 PAT 吧，放在哪里配置",
            """
        1. 创建一个 fine-grained PAT，只给这个仓库的 Contents: read and write 权限；
        2. 仓库 Settings → Secrets and variables → Actions，新建 `RELEASE_TOKEN`；
        3. bump-version 的 checkout 用它：

        ```yaml
        - uses: actions/checkout@v4
          with:
            token: ${{ secrets.RELEASE_TOKEN }}
            fetch-depth: 0
        ```

        之后 `git push --tags` 用的就是这个 token，release.yml 会被正常触发。PAT 有过期时间，记得设提醒。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- docker
SESSIONS["compose-healthcheck"] = (
    "payments-api",
    [
        t(  # 0
            """
        docker compose up: the api container starts, crashes with "connection refused" to db, restarts, and
        eventually works. I have depends_on: [db] already. how do i make it wait properly
        """,
            """
        `depends_on` with a plain list only orders container *start*; it doesn't wait until Postgres accepts
        connections (initdb on a fresh volume takes several seconds). Give the db a healthcheck and make the api
        wait for it to be healthy:

        ```yaml
        services:
          db:
            image: postgres:16
            environment:
              POSTGRES_USER: payments
              POSTGRES_PASSWORD: payments
            healthcheck:
              test: ["CMD", "pg_isready -U payments"]
              interval: 2s
              retries: 5
          api:
            build: .
            depends_on:
              db:
                condition: service_healthy
        ```
        """,
        ),
        t(  # 1
            """
        now it never starts at all:
        dependency failed to start: container payments-db-1 is unhealthy
        """,
            """
        My mistake in the healthcheck. With the exec form `["CMD", "pg_isready -U payments"]` Docker looks for an
        executable literally named `pg_isready -U payments`, so every probe fails before Postgres is even asked:

        Either split the arguments (`["CMD", "pg_isready", "-U", "payments", "-d", "payments"]`) or use the shell
        form. Also give initdb time before failures count:

        ```yaml
            healthcheck:
              test: ["CMD-SHELL", "pg_isready -U payments -d payments"]
              interval: 2s
              timeout: 3s
              retries: 15
              start_period: 20s
        ```
        """,
            [
                sh(
                    "docker inspect --format '{{json .State.Health}}' payments-db-1 | jq '.Log[-1].Output'",
                    '"OCI runtime exec failed: exec failed: unable to start container process: exec: \\"pg_isready -U payments\\": executable file not found in $PATH: unknown"',
                )
            ],
        ),
        t(  # 2
            "works. thanks!",
            "Good. `docker compose up` now shows db as `(healthy)` after ~4 s and the api starts once, no restart loop.",
        ),
    ],
)

SESSIONS["docker-arm"] = (
    "ragsearch",
    [
        t(  # 0
            """
        built the image on my M2 macbook, pushed it, and on the server (ubuntu, x86) the container dies immediately:
        exec /usr/local/bin/python: exec format error
        older docker there prints: standard_init_linux.go:228: exec user process caused: exec format error
        """,
            """
        The image was built for linux/arm64 (your Mac's architecture) and the server is linux/amd64. Build for the
        server's platform explicitly:

        ```
        docker buildx build --platform linux/amd64 -t registry.example.com/ragsearch:1.8.0 --push .
        ```

        `docker image inspect ... --format '{{.Architecture}}'` on the pushed tag should now say amd64.
        """,
            [
                sh(
                    "docker buildx build --platform linux/amd64 -t registry.example.com/ragsearch:1.8.0 --push .",
                    "=> pushing manifest for registry.example.com/ragsearch:1.8.0",
                )
            ],
        ),
        t(  # 1
            "can we build for both so people on macs can run it locally too",
            """
        Yes, a multi-arch image: one tag, a manifest list with both variants; docker pulls the matching one.

        ```
        docker buildx create --name multi --use
        docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/ragsearch:1.8.0 --push .
        ```

        The non-native half is built under QEMU emulation, which is slow for anything that compiles.
        """,
        ),
        t(  # 2
            "the amd64 half under qemu is compiling faiss from source and takes 40+ minutes lol",
            """
        Two fixes. First, don't compile: `faiss-cpu` has manylinux wheels for both x86_64 and aarch64, the build
        only compiled because requirements pinned `faiss==1.7.2` from the sdist. Use `faiss-cpu==1.8.0`.

        Second, avoid emulation entirely in CI: build each architecture on a native runner (ubuntu-24.04 and
        ubuntu-24.04-arm), push per-arch tags, then stitch them together:

        ```
        docker buildx imagetools create -t registry.example.com/ragsearch:1.8.0 \
            registry.example.com/ragsearch:1.8.0-amd64 registry.example.com/ragsearch:1.8.0-arm64
        ```

        Both legs now take ~4 minutes.
        """,
        ),
    ],
)

SESSIONS["zh-docker-volume-perm"] = (
    "report-service",
    [
        t(  # 0
            """
        容器里往 /app/uploads 写文件报错
        PermissionError: [Errno 13] Permission denied: '/app/uploads/2024-05'
        宿主机目录是 bind mount 进去的 -v /data/report/uploads:/app/uploads
        """,
            """
        我看一下 Dockerfile 和宿主机上目录的权限。

        Dockerfile 最后有 `USER app`，容器进程以 uid 1000 运行；而宿主机上的 /data/report/uploads 是 root 创建的（属主 0:0，权限 755），bind mount 不会改变属主，所以 uid 1000 没有写权限。

        几种办法：
        1. 宿主机上 `chown -R 1000:1000 /data/report/uploads`（最简单）；
        2. 运行时指定用户和宿主机一致：`docker run --user $(id -u):$(id -g) ...`；
        3. 不用 bind mount，改用 named volume，第一次挂载时会从镜像里的目录继承属主。
        """,
            [sh("ls -ln /data/report", "drwxr-xr-x 2 0 0 4096 May  3 10:12 uploads")],
        ),
        t(  # 1
            "用 root 跑就没问题了，为什么不直接去掉 USER app",
            """
        能跑，但不建议。容器里的 root 和宿主机的 root 是同一个 uid 0（没开 user namespace 的情况下），一旦应用有漏洞（比如文件上传路径穿越、反序列化），攻击者就是以 root 身份在操作挂载进来的宿主机目录，甚至利用内核漏洞逃逸。最小权限原则：业务进程用普通用户跑，只给它需要写的目录授权。
        """,
        ),
        t(  # 2
            "那到了 k8s 上面怎么处理这个权限",
            """
        在 Pod 的 securityContext 里声明：

        ```yaml
        securityContext:
          runAsUser: 1000
          runAsGroup: 1000
          fsGroup: 1000
        ```

        `fsGroup` 会让 kubelet 把挂载的卷（PVC、emptyDir）的属组改成 1000 并加上组写权限，容器里的 uid 1000 就能写了。卷很大的时候加 `fsGroupChangePolicy: OnRootMismatch`，避免每次启动都递归 chown。
        """,
        ),
    ],
)

SESSIONS["docker-disk"] = (
    "infra",
    [
        t(  # 0
            """
        self-hosted CI runner started failing every build:

        failed to register layer: write /var/lib/docker/overlay2/9c1f.../diff/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1: no space left on device
        """,
            """
        Docker's data root is full. Let's see what's using it.

        Build cache is the culprit: 38.2 GB, almost all reclaimable. Every BuildKit build leaves cache records, and
        nothing on this runner ever cleans them. Images are 11 GB, volumes and containers are small.
        """,
            [
                sh(
                    "docker system df",
                    """
            TYPE            TOTAL     ACTIVE    SIZE      RECLAIMABLE
            Images          47        6         11.04GB   8.91GB (80%)
            Containers      9         2         212MB     201MB (94%)
            Local Volumes   14        3         2.3GB     1.9GB (82%)
            Build Cache     1893      0         38.2GB    38.2GB
            """,
                )
            ],
        ),
        t(  # 1
            "clean it up",
            """
        Ran:

        ```
        docker builder prune --filter until=72h -f
        docker image prune -a --filter until=168h -f
        ```

        Reclaimed 41.7 GB; `/var/lib/docker` is at 31% now. I kept the last 3 days of build cache so the next builds
        aren't cold. Avoid `docker system prune -a --volumes` on this box, it would also remove the runner's cache
        volume.
        """,
            [
                sh("docker builder prune --filter until=72h -f", "Total reclaimed space: 36.4GB"),
                sh("docker image prune -a --filter until=168h -f", "Total reclaimed space: 5.3GB"),
            ],
        ),
        t(  # 2
            "make it automatic so this doesn't happen again",
            """
        Two pieces:

        1. A systemd timer running the two prune commands every night at 03:30 (`/etc/systemd/system/docker-prune.timer` + `.service`).
        2. Container logs were another 4 GB of json-file logs, so cap them in `/etc/docker/daemon.json`:

        ```json
        {
          "log-driver": "json-file",
          "log-opts": { "max-size": "10m", "max-file": "3" },
          "builder": { "gc": { "enabled": true, "defaultKeepStorage": "20GB" } }
        }
        ```

        The `builder.gc` setting makes BuildKit garbage-collect its own cache above 20 GB. Restarted dockerd.
        """,
            [
                sh("systemctl enable --now docker-prune.timer", "Created symlink ... docker-prune.timer"),
                sh("systemctl restart docker"),
            ],
        ),
    ],
)

SESSIONS["zh-docker-pip-mirror"] = (
    "crm-backend",
    [
        t(  # 0
            """
        公司服务器上 docker build 的时候 pip install 一直超时：
        pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.
        """,
            """
        服务器访问 PyPI 官方源很慢。在 Dockerfile 里用国内镜像，并把超时调大：

        ```dockerfile
        ARG PIP_INDEX_URL=https://pypi.tuna.tsinghua.edu.cn/simple
        ENV PIP_INDEX_URL=${PIP_INDEX_URL} PIP_DEFAULT_TIMEOUT=100
        RUN pip install --no-cache-dir -r requirements.txt
        ```

        做成 build-arg 的好处是海外的 CI 可以 `--build-arg PIP_INDEX_URL=https://pypi.org/simple` 换回官方源。
        """,
        ),
        t(  # 1
            "apt-get update 也卡很久",
            """
        基础镜像是 python:3.12-slim（Debian bookworm），它的源配置不在 /etc/apt/sources.list 了，而是 `/etc/apt/sources.list.d/debian.sources`（deb822 格式）。替换成阿里云镜像：

        ```dockerfile
        RUN sed -i 's|deb.debian.org|mirrors.aliyun.com|g' /etc/apt/sources.list.d/debian.sources \
            && apt-get update && apt-get install -y --no-install-recommends libpq5 \
            && rm -rf /var/lib/apt/lists/*
        ```

        构建时间从 9 分钟降到 1 分半。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- caching
SESSIONS["redis-oom"] = (
    "shopfront",
    [
        t(  # 0
            """
        Traceback (most recent call last):
          File "/usr/local/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner
            response = get_response(request)
          File "/usr/local/lib/python3.12/site-packages/django/core/handlers/base.py", line 197, in _get_response
            response = wrapped_callback(request, *callback_args, **callback_kwargs)
          File "/app/shop/cart/views.py", line 121, in add_item
            store.save_cart(cart)
          File "/app/shop/cart/store.py", line 58, in save_cart
            self.redis.set(key, payload, ex=CART_TTL)
          File "/usr/local/lib/python3.12/site-packages/redis/commands/core.py", line 2335, in set
            return self.execute_command("SET", *pieces, **options)
          File "/usr/local/lib/python3.12/site-packages/redis/connection.py", line 1186, in read_response
            raise response
        redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'.

        checkout is failing, sentry is full of these since ~10:40
        """,
            """
        Redis hit its `maxmemory` (2 GB on this ElastiCache node) and its eviction policy is `noeviction`, so instead
        of evicting anything it rejects every write. Reads still work, which is why browsing is fine and checkout
        isn't.

        Short term: switch the policy so it can evict. Since this instance is a cache plus carts (carts have a TTL),
        `volatile-lru` evicts only keys that have an expiry; `allkeys-lru` evicts anything. On ElastiCache that's the
        `maxmemory-policy` parameter in the parameter group; on plain Redis `CONFIG SET maxmemory-policy volatile-lru`.

        Then find out why 2 GB filled up; the cart keys alone should be ~300 MB.
        """,
        ),
        t(  # 1
            "which keys are eating the memory",
            """
        `redis-cli --bigkeys` samples with SCAN (safe on prod) and reports the biggest key per type; `--memkeys`
        does the same by memory usage.

        The count matters more than the biggest key here: 4.1 million `session:*` strings. Sampling a few with
        `MEMORY USAGE` gives ~420 bytes each, so ~1.7 GB of sessions, and `TTL session:...` returns -1: no expiry.
        """,
            [
                sh(
                    "redis-cli -h cache.shop.internal --memkeys --memkeys-samples 100",
                    """
            -------- summary -------
            Sampled 4412980 keys in the keyspace!
            Biggest string found 'catalog:menu:v3' has 2211894 bytes
            4102331 strings with 1722981020 bytes (92.96% of keys, avg size 420.00)
            """,
                ),
                sh("redis-cli -h cache.shop.internal TTL session:8f2c91e0aa", "(integer) -1"),
            ],
        ),
        t(  # 2
            "session:* keys have no ttl!! since when",
            """
        Since the Django 4.2 upgrade three weeks ago: the custom session backend in `shop/sessions/redis_backend.py`
        used `self.redis.setex(key, self.get_expiry_age(), data)` and the refactor changed it to
        `self.redis.set(key, data)` (the `ex=` argument got lost when the call was split over two lines).

        Fix the backend to pass `ex=self.get_expiry_age()` (14 days), then backfill an expiry on the existing keys
        with a SCAN loop so nothing blocks:

        ```python
        for key in r.scan_iter(match="session:*", count=1000):
            if r.ttl(key) == -1:
                r.expire(key, 14 * 86400)
        ```
        """,
        ),
        t(  # 3
            "ok do it",
            """
        Backend fixed (with a test asserting the TTL is set) and the backfill ran for 22 minutes:

        ```
        scanned=4102331 expired_set=4102331 errors=0
        used_memory_human: 1.79G -> (after the old ones age out over 14 days)
        ```

        I also set `maxmemory-policy volatile-lru` in the parameter group, so if this ever happens again Redis
        evicts expiring keys instead of refusing writes.
        """,
            [
                edit("shop/sessions/redis_backend.py", "pass ex=self.get_expiry_age() on save"),
                sh(
                    "python scripts/backfill_session_ttl.py --pattern 'session:*' --ttl 1209600",
                    "scanned=4102331 expired_set=4102331 errors=0",
                ),
            ],
        ),
    ],
)

SESSIONS["cdn-stale-assets"] = (
    "shopfront",
    [
        t(  # 0
            """
        after every deploy some users get a white screen. console:
        ChunkLoadError: Loading chunk 412 failed.
        (error: https://cdn.shop.example.com/assets/412.8c1f9a.js)
        the file really doesn't exist anymore, new build has different hashes
        """,
            """
        I'll check the deploy script and the response headers of index.html and one of the chunks.

        Users with the app already open (or with a cached `index.html`) still reference the old chunk names; the
        deploy replaced the bucket contents, so lazy-loaded chunks from the previous build 404.

        Two fixes, do both:
        1. Cache headers: `index.html` with `Cache-Control: no-cache` (always revalidated), hashed files under
           `/assets/` with `Cache-Control: public, max-age=31536000, immutable`.
        2. Don't delete old assets on deploy; upload the new build next to them (`aws s3 sync --no-delete` style)
           and clean assets older than ~2 weeks with a lifecycle rule.
        """,
        ),
        t(  # 1
            "what does that look like in cloudfront",
            """
        - Behavior `/assets/*`: managed policy `CachingOptimized`; objects uploaded with the immutable header.
        - Default behavior (serves index.html): a cache policy with min/default TTL 0 so CloudFront revalidates.
        - On each deploy, after the upload, invalidate only the entry point:

        ```
        aws cloudfront create-invalidation --distribution-id E2QWRUHAPOMQZL --paths "/index.html" "/"
        ```

        Invalidating `/*` on every deploy is unnecessary with hashed asset names and costs money past 1,000 paths/month.
        """,
            [
                sh(
                    'aws cloudfront create-invalidation --distribution-id E2QWRUHAPOMQZL --paths "/index.html" "/"',
                    '{"Invalidation": {"Id": "I3NDW8B5ZQ0C1V", "Status": "InProgress"}}',
                )
            ],
        ),
        t(  # 2
            "also can the app recover by itself when it hits that error",
            """
        Yes: catch the failed dynamic import once and reload the page, guarded so it can't loop:

        ```ts
        window.addEventListener("vite:preloadError", () => {
          if (!sessionStorage.getItem("reloaded-after-deploy")) {
            sessionStorage.setItem("reloaded-after-deploy", "1");
            window.location.reload();
          }
        });
        ```

        For the webpack build it's the same idea in the router's lazy() wrapper, catching `ChunkLoadError`.
        """,
        ),
    ],
)

SESSIONS["zh-local-cache"] = (
    "ragsearch",
    [
        t(  # 0
            "配置查询用 functools.lru_cache 缓存了，结果在后台改了数据库里的配置一直不生效，要重启才行",
            """
        我先找到配置读取的代码：ragsearch/config.py 里的 get_config。

        `lru_cache` 只有容量上限，没有过期时间，进程不重启、不调用 `get_config.cache_clear()`，缓存就永远是第一次查到的值。

        需要过期的话用 cachetools：

        ```python
        from cachetools import TTLCache, cached

        @cached(TTLCache(maxsize=256, ttl=60))
        def get_config(name: str) -> dict:
            return repo.load_config(name)
        ```
        """,
        ),
        t(  # 1
            "线上是 gunicorn 8 个 worker，每个 worker 一份缓存，改了配置以后不同请求拿到的值不一样",
            """
        对，本地缓存是进程内的，8 个 worker 各有一份，各自在不同时间过期，所以 60 秒内会看到新旧值交替。可选方案：

        1. 接受最长 TTL 秒的不一致（配置类数据通常可以）；
        2. 改用 Redis 做集中缓存，所有 worker 读同一份；
        3. 本地缓存 + 失效通知：改配置时往 Redis 频道 publish 一条消息，每个 worker 订阅后清掉自己的缓存。

        你们的配置一天改不了几次，我建议 1，把 TTL 调短一点。
        """,
        ),
        t(  # 2
            "那就 TTL 60 秒吧，加个手动刷新的接口",
            """
        加好了：`get_config` 用 `TTLCache(maxsize=256, ttl=60)`，另外一个管理接口 `POST /admin/config/reload` 调用 `get_config.cache_clear()`。注意这个接口只会清掉处理这个请求的那个 worker 的缓存，其他 worker 最多 60 秒后自然过期，接口文档里写清楚了。
        """,
            [edit("ragsearch/config.py", "TTLCache(maxsize=256, ttl=60) on get_config; /admin/config/reload")],
        ),
    ],
)

SESSIONS["zh-redis-hotkey"] = (
    "flash-sale",
    [
        t(  # 0
            "秒杀活动一开始，redis 集群里一个分片 CPU 打满 100%，其他分片都很闲，接口大量超时",
            """
        典型的热 key：所有人都在读写同一个商品的库存 key（比如 `stock:1001`），而一个 key 只会落在一个分片上，集群扩容也分摊不了。

        处理思路：
        1. 找出热 key：`redis-cli --hotkeys`；
        2. 读多的热 key 加本地缓存（进程内缓存几百毫秒），大部分读请求不打到 redis；
        3. 写多的热 key 拆分：库存拆成 10 份 `stock:1001:{0..9}`，请求随机扣其中一份，扣完再去别的份；
        4. 前面加限流和排队，秒杀请求没必要全部打到 redis。
        """,
        ),
        t(  # 1
            """
        执行 redis-cli --hotkeys 报错：
        Error: ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.
        """,
            """
        `--hotkeys` 依赖 LFU 的访问频率统计，只有淘汰策略是 LFU 时才有。可以临时切换：

        ```
        CONFIG SET maxmemory-policy allkeys-lfu
        ```

        切换后要跑一会儿数据才准。如果是云上的 Redis，不允许 CONFIG 的话，在控制台参数里改，或者直接用云厂商的"热 key 分析"功能。实在不能改策略，可以短时间 `MONITOR` 采样几秒统计（对性能影响很大，别开久）。
        """,
        ),
        t(  # 2
            "库存扣减怎么保证不超卖",
            """
        扣减和判断必须是一个原子操作，不能先 GET 再 DECR。用 Lua 脚本：

        ```lua
        local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
        local n = tonumber(ARGV[1])
        if stock < n then return -1 end
        return redis.call('DECRBY', KEYS[1], n)
        ```

        Redis 单线程执行整个脚本，中间不会插入别的命令。返回 -1 表示库存不足。扣减成功后再异步写订单，订单失败要把库存加回去（INCRBY）。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- frontend
SESSIONS["next-hydration"] = (
    "storefront-next",
    [
        t(  # 0
            """
        product page in next.js throws in the console (only in prod build):

        Uncaught Error: Hydration failed because the initial UI does not match what was rendered on the server.
        See more info here: https://nextjs.org/docs/messages/react-hydration-error

        and then the whole page re-renders on the client
        """,
            """
        I'll read the product page components and `lib/format.ts` first.

        The HTML the server rendered differs from the client's first render, so React throws it away. Usual
        causes: values that differ between server and browser (`Date.now()`, `Math.random()`, `toLocaleString()`
        without an explicit locale/time zone), `typeof window !== "undefined"` branches in render, browser
        extensions injecting markup, and invalid HTML nesting.

        Can you send the diff React prints in dev mode (`next dev`)? It names the text node that differs.
        """,
        ),
        t(  # 1
            """
        dev says: Text content does not match server-rendered HTML.
        Server: "€1,299.00" Client: "1.299,00 €"
        """,
            """
        It's the price formatting. `formatPrice()` calls `price.toLocaleString(undefined, {style: "currency", ...})`:
        the server (Node in the container) uses en-US, the browser uses the visitor's locale (de-DE here).

        Format with an explicit locale that both sides agree on: resolve it on the server from the URL / Accept-Language,
        pass it down as a prop, and use `new Intl.NumberFormat(locale, { style: "currency", currency })` everywhere.
        """,
            [edit("lib/format.ts", "formatPrice(amount, currency, locale) using Intl.NumberFormat with explicit locale")],
        ),
        t(  # 2
            "also there's a warning: In HTML, <div> cannot be a descendant of <p>. This will cause a hydration error.",
            """
        `ProductBadge` renders a `<div>` and it's used inside the `<p className="subtitle">` in ProductHeader. The
        browser's parser closes the `<p>` before the `<div>`, so the DOM no longer matches React's tree. Change the
        wrapper `<p>` to a `<div>` (or make ProductBadge a `<span>`). After both fixes the prod build hydrates
        without errors.
        """,
        ),
    ],
)

SESSIONS["vite-env"] = (
    "admin-web",
    [
        t(  # 0
            "import.meta.env.API_URL is undefined in the production build, works with npm run dev? we set API_URL in the env",
            """
        Let me check `vite.config.ts`, the `.env*` files and the Dockerfile.

        Vite only exposes variables prefixed with `VITE_` to client code (to avoid leaking server secrets), and it
        replaces them at *build* time. So: rename to `VITE_API_URL` and make sure it's set when `vite build` runs
        (e.g. `.env.production`), not when the container starts. In dev it "worked" because the code fell back to
        the proxy.
        """,
        ),
        t(  # 1
            "problem: we build one image and deploy it to staging and prod with different API urls. build-time won't work",
            """
        Then move that setting to runtime config. Serve a tiny `/config.js` generated when the container starts:

        ```sh
        #!/bin/sh
        # docker-entrypoint.sh
        envsubst '${API_URL} ${SENTRY_DSN}' < /usr/share/nginx/html/config.template.js > /usr/share/nginx/html/config.js
        exec nginx -g 'daemon off;'
        ```

        `index.html` loads `<script src="/config.js"></script>` before the bundle, and the app reads
        `window.__CONFIG__.API_URL`. Serve config.js with `Cache-Control: no-store`.
        """,
            [
                {"tool": "Write", "args": {"path": "docker-entrypoint.sh"}, "result": "written"},
                {"tool": "Write", "args": {"path": "public/config.template.js"}, "result": "written"},
            ],
        ),
    ],
)

SESSIONS["zh-vue-history-404"] = (
    "admin-console",
    [
        t(  # 0
            "Vue3 项目路由用的 createWebHistory，本地 dev 一切正常，部署到 nginx 之后直接访问 /orders/123 或者刷新页面就 404",
            """
        history 模式下 /orders/123 只是前端路由，服务器上并没有这个文件，nginx 找不到就返回 404。要让所有找不到的路径都回退到 index.html，由前端路由接管：

        ```nginx
        location / {
            root /usr/share/nginx/html;
            try_files $uri $uri/ /index.html;
        }
        ```
        """,
        ),
        t(  # 1
            "现在要部署在子路径 /admin/ 下面，页面能打开但是 js css 全是 404",
            """
        子路径部署要改三处，保持一致：

        1. vite.config.ts：`base: '/admin/'`，这样打包出来的资源路径是 /admin/assets/...；
        2. 路由：`createWebHistory('/admin/')`（或者 `import.meta.env.BASE_URL`）；
        3. nginx：

        ```nginx
        location /admin/ {
            alias /usr/share/nginx/html/admin/;
            try_files $uri $uri/ /admin/index.html;
        }
        ```
        """,
        ),
        t(  # 2
            "好了 谢谢",
            "不客气。如果以后前面再加一层网关做路径转发，记得网关不要把 /admin 前缀去掉，否则资源路径又对不上了。",
        ),
    ],
)

SESSIONS["zh-cors"] = (
    "admin-console",
    [
        t(  # 0
            """
        前端 localhost:5173 调后端 localhost:8000 登录接口，浏览器报：
        Access to fetch at 'http://localhost:8000/api/login' from origin 'http://localhost:5173' has been blocked by CORS policy: The value of the 'Access-Control-Allow-Origin' header in the response must not be the wildcard '*' when the request's credentials mode is 'include'.
        后端 FastAPI 已经加了 CORSMiddleware allow_origins=["*"]
        """,
            """
        带 cookie 的请求（`credentials: 'include'`）不允许 `Access-Control-Allow-Origin: *`，必须返回具体的 origin，并且带 `Access-Control-Allow-Credentials: true`：

        ```python
        app.add_middleware(
            CORSMiddleware,
            allow_origins=["http://localhost:5173"],
            allow_credentials=True,
            allow_methods=["*"],
            allow_headers=["*"],
        )
        ```

        端口不同也算跨域，localhost:5173 和 localhost:8000 是两个 origin。
        """,
        ),
        t(  # 1
            "开发环境能不能直接绕过去，不想每个后端都配",
            """
        可以，用 Vite 的开发代理，让浏览器只和 5173 打交道，同源就没有 CORS：

        ```ts
        server: {
          proxy: {
            '/api': { target: 'http://localhost:8000', changeOrigin: true },
          },
        }
        ```

        前端请求写成相对路径 `/api/login`。
        """,
        ),
        t(  # 2
            "那生产环境呢",
            "生产环境同理：前端静态文件和 /api 都挂在同一个域名下，由 nginx 把 `/api/` 反向代理到后端服务（`location /api/ { proxy_pass http://backend:8000; }`），浏览器看来是同源，也就不需要 CORS 配置了。",
        ),
    ],
)

SESSIONS["react-stale-closure"] = (
    "ops-dashboard",
    [
        t(  # 0
            """
        const [count, setCount] = useState(0)
        useEffect(() => { const id = setInterval(() => setCount(count + 1), 1000); return () => clearInterval(id) }, [])
        count goes to 1 and stays at 1 forever??
        """,
            """
        Looking at `src/components/Uptime.tsx`.

        The interval callback closed over `count` from the first render (0), and the effect never re-runs because
        of `[]`, so every tick sets 0 + 1. Use the functional update, which always receives the latest state:

        ```js
        setCount(c => c + 1)
        ```
        """,
        ),
        t(  # 1
            "same kind of bug: the websocket onmessage handler reads the `filters` state and always sees the initial filters",
            """
        Same stale closure: the socket is opened once in an effect, so its handler sees the first `filters`. You
        don't want to reconnect on every filter change, so keep the latest value in a ref:

        ```js
        const filtersRef = useRef(filters)
        useEffect(() => { filtersRef.current = filters }, [filters])

        useEffect(() => {
          const ws = new WebSocket(url)
          ws.onmessage = (e) => {
            const event = JSON.parse(e.data)
            if (matches(event, filtersRef.current)) setEvents(prev => [event, ...prev].slice(0, 500))
          }
          return () => ws.close()
        }, [url])
        ```
        """,
        ),
        t(  # 2
            "continue",
            """
        Applied the ref pattern in `useLiveEvents` and the functional update in the three timers
        (`Countdown`, `RefreshBadge`, `Uptime`). Also added `eslint-plugin-react-hooks` with `exhaustive-deps` as an
        error, which flags the original `setCount(count + 1)` with an empty dependency array. 4 files changed, the
        dashboard's live feed now respects filter changes immediately.
        """,
            [sh("npx eslint src --rule 'react-hooks/exhaustive-deps: error'", "✖ 3 problems (3 errors, 0 warnings)")],
        ),
    ],
)

# ---------------------------------------------------------------- vector search
SESSIONS["pgvector-hnsw"] = (
    "ragsearch",
    [
        t(  # 0
            """
        pgvector question. this query sometimes returns only 2 or 3 rows instead of 10, for small tenants:

        SELECT id, chunk FROM chunks WHERE tenant_id = $1 ORDER BY embedding <=> $2 LIMIT 10;

        there are definitely more than 10 chunks for that tenant
        """,
            """
        Let me check the pgvector version and the index definition on `chunks`.

        That's how filtering works with an HNSW index: the index scan returns the `hnsw.ef_search` nearest
        neighbours overall (default 40), and only then is `tenant_id = $1` applied. If a small tenant owns 0.5% of
        the rows, only a couple of those 40 candidates belong to it.

        Options:
        - raise the candidate list for these queries: `SET LOCAL hnsw.ef_search = 200;`
        - pgvector 0.8+: iterative index scans keep scanning until enough rows pass the filter:
          `SET hnsw.iterative_scan = relaxed_order;` (with `hnsw.max_scan_tuples` as the cap)
        - for a few very large tenants, partial indexes (`... WHERE tenant_id = 42`) or partitioning by tenant.

        You're on 0.8.0, so iterative_scan is the cleanest.
        """,
        ),
        t(  # 1
            "CREATE INDEX ... USING hnsw on 6M rows has been running for 3 hours",
            """
        HNSW builds are memory-bound: when the graph no longer fits in `maintenance_work_mem`, the build falls back
        to a much slower path (there's a NOTICE "hnsw graph no longer fits into maintenance_work_mem"). Cancel it and
        rebuild with more memory and parallel workers:

        The rebuild with `m = 16, ef_construction = 64` (the defaults) took 24 minutes.
        """,
            [
                sh(
                    "psql $RAG_DB -c \"SET maintenance_work_mem = '8GB'; SET max_parallel_maintenance_workers = 7; "
                    'CREATE INDEX CONCURRENTLY chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);"',
                    "CREATE INDEX",
                )
            ],
        ),
        t(  # 2
            "ivfflat instead? someone said it builds faster",
            """
        It does build faster and uses less memory, but: it needs representative data before you build it (the
        `lists` centroids are computed from the existing rows, so building on an empty table gives bad recall),
        recall depends on `ivfflat.probes` at query time, and it degrades as the data drifts unless you rebuild.
        HNSW gives better speed/recall and handles inserts. For 6M rows that keep growing I'd stay on HNSW.
        """,
        ),
    ],
)

SESSIONS["embedding-dim"] = (
    "ragsearch",
    [
        t(  # 0
            """
        switched the embedder from all-MiniLM-L6-v2 to bge-base-en-v1.5 and now every upsert fails:

        Traceback (most recent call last):
          File "/app/ragsearch/ingest.py", line 142, in upsert_batch
            client.upsert(collection_name=COLLECTION, points=points, wait=True)
          File "/usr/local/lib/python3.11/site-packages/qdrant_client/qdrant_client.py", line 1532, in upsert
            return self._client.upsert(
          File "/usr/local/lib/python3.11/site-packages/qdrant_client/qdrant_remote.py", line 1923, in upsert
            http_result = self.openapi_client.points_api.upsert_points(
          File "/usr/local/lib/python3.11/site-packages/qdrant_client/http/api_client.py", line 130, in send
            raise UnexpectedResponse.for_response(response)
        qdrant_client.http.exceptions.UnexpectedResponse: Unexpected Response: 400 (Bad Request)
        Raw response content:
        b'{"status":{"error":"Wrong input: Vector dimension error: expected dim: 384, got 768"},"time":0.000612}'
        """,
            """
        The `docs` collection was created for MiniLM's 384-dim vectors; bge-base produces 768. A collection's vector
        size can't be changed, and the old vectors are useless with the new model anyway (different embedding
        space), so this needs a new collection and a full re-embed.
        """,
        ),
        t(  # 1
            "how do we do that without the search being down while it reindexes (~2h)",
            """
        Use a collection alias. The app queries the alias `docs`, never a real collection name:

        1. create `docs_v2` with `VectorParams(size=768, distance=Distance.COSINE)`;
        2. backfill it from the source documents with the new model (the app keeps serving from the old collection);
        3. switch atomically:
           `client.update_collection_aliases(change_aliases_operations=[DeleteAliasOperation(...docs), CreateAliasOperation(create_alias=CreateAlias(collection_name="docs_v2", alias_name="docs"))])`;
        4. keep `docs_v1` for a day in case you need to switch back, then delete it.

        One catch: writes that happen during the backfill must go to both collections, or re-run the backfill for
        documents changed after it started (we have `updated_at`, so that's a cheap second pass).
        """,
        ),
        t(  # 2
            "ok do it",
            """
        Ran the reindex script; output:

        ```
        [reindex] source documents: 184,220 (chunks: 1,203,877)
        [reindex] model: BAAI/bge-base-en-v1.5 (768d), batch 256, device cpu x16
        [reindex]   100000/1203877 chunks   8.3%  eta 1:52:10
        [reindex]   500000/1203877 chunks  41.5%  eta 1:04:31
        [reindex]  1000000/1203877 chunks  83.1%  eta 0:18:40
        [reindex]  1203877/1203877 chunks 100.0%  elapsed 1:49:02
        [reindex] second pass: 3,412 chunks updated since start, re-embedded
        [reindex] alias docs -> docs_v2 (was docs_v1)
        [reindex] eval: recall@10 0.71 -> 0.83 on the 300-query judged set
        ```

        Search served from docs_v1 the whole time; the switch was instant.
        """,
            [sh("python scripts/reindex.py --model BAAI/bge-base-en-v1.5 --target docs_v2 --switch-alias docs", "(see above)")],
        ),
    ],
)

SESSIONS["zh-faiss"] = (
    "ragsearch",
    [
        t(  # 0
            "faiss 用的 IndexFlatL2，一千万条 768 维向量，内存 30 多 G 快撑爆了，查询一次也要一秒多",
            """
        好的，我先看一下建索引的脚本 build_index.py 和机器的配置。

        IndexFlatL2 是暴力搜索，每个向量原样存（768 × 4 字节 ≈ 3KB），一千万条就是 30GB，查询要和所有向量算距离。

        换成 IVF + PQ 压缩：

        ```python
        quantizer = faiss.IndexFlatL2(768)
        index = faiss.IndexIVFPQ(quantizer, 768, 4096, 64, 8)  # nlist=4096, m=64 个子向量, 每个 8 bit
        index.train(sample)   # 训练样本至少 30 * nlist，这里用 50 万条
        index.add(vectors)
        ```

        每个向量压缩到 64 字节，一千万条约 640MB，查询只扫描最近的几个聚类。
        """,
        ),
        t(  # 1
            "换成 IVF 以后快了很多，但是召回率掉得厉害，以前能搜到的现在搜不到了",
            """
        两个参数影响最大：

        1. `index.nprobe`：查询时扫描几个聚类，默认是 1，只看最近的一个桶，很容易漏。调到 32～64 试试，召回率会明显回升，速度还是比 Flat 快很多；
        2. 你们的向量是 bge 模型出来的，应该用余弦相似度：先 `faiss.normalize_L2(x)` 再用内积（METRIC_INNER_PRODUCT），而不是 L2。

        用标注好的 200 条查询测一下 recall@10 和延迟，画一条 nprobe 的曲线再选值。
        """,
        ),
        t(  # 2
            "想上 GPU，pip install faiss-gpu 装不上",
            """
        PyPI 上老的 faiss-gpu 包很久没更新，不支持新的 Python 和 CUDA。可以：

        - 用 conda：`conda install -c pytorch -c nvidia faiss-gpu=1.8.0`；
        - 或者用社区打包的 `pip install faiss-gpu-cu12`（对应 CUDA 12）。

        装好后 `faiss.get_num_gpus()` 返回大于 0 就可以用 `faiss.index_cpu_to_gpu` 把索引搬到 GPU 上。
        """,
        ),
    ],
)

SESSIONS["zh-bm25-jieba"] = (
    "ragsearch",
    [
        t(  # 0
            "中文的关键词检索效果很差，搜'向量数据库'搜不到写着'向量库'的文档，搜一个词经常什么都没有",
            """
        BM25 本身没问题，问题在分词：现在的 tokenizer 按空格和标点切分，一整句中文会被当成一个超长的"词"，除非查询和文档一字不差，否则匹配不上。

        中文要先分词再建索引：
        - 用 jieba（`jieba.lcut_for_search`，会额外切出短词，召回更好），并把领域词（"向量库"、"召回率"、"嵌入模型"）加到自定义词典；
        - 或者简单粗暴地用字的 bigram（"向量数据库" → 向量/量数/数据/据库），不需要词典，召回高但精度低一些。

        查询和文档必须用同一种分词方式。
        """,
        ),
        t(  # 1
            "分词加上以后好多了。关键词检索和向量检索两路结果怎么合并",
            """
        最省事的是 RRF（倒数排名融合）：每个文档的分数 = Σ 1/(k + 排名)，k 一般取 60，只用排名不用原始分数，不需要把 BM25 分数和余弦相似度归一化到同一个尺度。

        也可以加权：把两路分数各自 min-max 归一化后按 0.3/0.7 加权，但权重要用标注数据调。先上 RRF，再在前 50 条上做重排（rerank）。
        """,
        ),
        t(  # 2
            "加了 bge-reranker-base 重排以后效果好了，但是每次查询多了 800ms",
            """
        cross-encoder 要对每个候选文档单独跑一次模型，耗时和候选数成正比：

        1. 只重排前 20～30 条，不要 100 条；
        2. 文档截断到 256 token；
        3. 把模型导出成 ONNX 并做 int8 量化，CPU 上快 2～3 倍；
        4. 一次 batch 推理所有候选，而不是循环一条一条。

        这几步做完，在我们的机器上 30 个候选大概 120ms。
        """,
        ),
    ],
)

SESSIONS["rag-pdf-tables"] = (
    "ragdocs",
    [
        t(  # 0
            "the bot answers questions about the pricing PDF with nonsense numbers. looking at the chunks, tables are flattened into one long line of numbers",
            """
        PyPDF's `extract_text()` reads text in drawing order, so a table becomes a stream of cells with no row or
        column structure, and the chunker then cuts it in the middle. Extract tables separately:
        `pdfplumber`'s `page.extract_tables()` gives rows of cells; render each table as a Markdown table, keep the
        caption and the column headers with it, and never split a table across chunks (a table bigger than the
        chunk size gets split by rows with the header repeated).
        """,
        ),
        t(  # 1
            "also the citations point at the wrong page",
            """
        The chunker concatenates all pages first and only then splits, so a chunk's page is computed from its start
        offset, and chunks that span a page break get the earlier page. Store `page_start`/`page_end` per chunk
        while splitting page by page, and cite `p. 12-13` when a chunk spans two pages.
        """,
        ),
    ],
)

# ---------------------------------------------------------------- testing
SESSIONS["pytest-scope"] = (
    "payments-api",
    [
        t(  # 0
            """
        moved the app fixture to session scope to speed things up and now:

        ScopeMismatch: You tried to access the function scoped fixture db_session with a session scoped request object. Requesting fixture stack:
        tests/conftest.py:41:  def app(db_session)
        Requested fixture:
        tests/conftest.py:22:  def db_session(engine)
        """,
            """
        A fixture can only depend on fixtures with the same or a wider scope. `app` is now session-scoped but
        asks for the function-scoped `db_session`, so pytest refuses.

        Keep the expensive part session-scoped and the per-test part function-scoped: `engine` and `app` at session
        scope, and don't inject the session into the app; instead override the app's session dependency per test
        (`app.dependency_overrides[get_session] = lambda: db_session` inside a function-scoped fixture).
        """,
        ),
        t(  # 1
            "that works. but now tests leak rows into each other, test_refund_list sees refunds created by other tests",
            """
        Each test needs to run inside a transaction that gets rolled back, including the commits the code under test
        makes. With SQLAlchemy 2.0:

        ```python
        @pytest.fixture
        def db_session(engine):
            with engine.connect() as conn:
                outer = conn.begin()
                session = Session(bind=conn, join_transaction_mode="create_savepoint")
                yield session
                session.close()
                outer.rollback()
        ```

        `join_transaction_mode="create_savepoint"` turns the app's `session.commit()` into a SAVEPOINT release, so
        everything is undone by the outer rollback.
        """,
        ),
        t(  # 2
            "pytest --lf keeps re-running the whole suite instead of just the failures, inside the dev container",
            """
        `--lf` (last failed) reads the failures from `.pytest_cache/v/cache/lastfailed`. In the dev container the
        suite never writes that file: `pytest.ini` has `addopts = -p no:cacheprovider` (added to keep the read-only
        CI checkout clean), which disables the cache plugin and with it `--lf` and `--ff`. pytest then falls back
        to running everything.

        Drop `-p no:cacheprovider` from addopts and, for CI, point the cache somewhere writable instead:
        `-o cache_dir=/tmp/pytest_cache`.
        """,
            [read("pytest.ini", "[pytest]\naddopts = -ra -p no:cacheprovider")],
        ),
    ],
)

SESSIONS["playwright-flaky"] = (
    "shopfront",
    [
        t(  # 0
            """
        e2e test "checkout as guest" fails ~1 in 5 runs on CI:

          1) [chromium] › checkout.spec.ts:42:7 › checkout as guest
            TimeoutError: page.waitForSelector: Timeout 30000ms exceeded.
            Call log:
              - waiting for locator('#card-number') to be visible
        """,
            """
        `#card-number` lives inside the Stripe Elements iframe, so `page.waitForSelector('#card-number')` on the main
        page can only succeed by accident. Also, the test has two `page.waitForTimeout(2000)` calls that hide the
        timing problem locally.

        Rewrite with locators (which auto-wait) and the frame locator:

        ```ts
        const card = page.frameLocator('iframe[title="Secure card payment input frame"]');
        await card.getByPlaceholder("Card number").fill("4242 4242 4242 4242");
        await expect(page.getByRole("button", { name: "Pay" })).toBeEnabled();
        ```

        And turn on traces for retries in playwright.config.ts: `trace: "on-first-retry"`, `retries: 2` on CI.
        """,
        ),
        t(  # 1
            "how do i look at the trace from a CI run",
            """
        The workflow uploads `playwright-report/` and `test-results/` as an artifact; download it from the run page,
        then open the trace zip of the failed retry locally:

        ```
        npx playwright show-trace test-results/checkout-checkout-as-guest-chromium-retry1/trace.zip
        ```

        The trace viewer shows every action with DOM snapshots, console and network. You can also drop the zip on
        trace.playwright.dev.
        """,
        ),
        t(  # 2
            "ok opened it. the stripe iframe shows up after 34 seconds in that run",
            """
        Then it's environmental: the CI runner's first request to js.stripe.com is slow (cold DNS + TLS through the
        runner's egress proxy), and the default 30 s expect/locator timeout runs out. The app is fine.

        - raise the timeout only for that step: `await expect(card.getByPlaceholder("Card number")).toBeVisible({ timeout: 60_000 })`;
        - warm up in `globalSetup` with a request to `https://js.stripe.com/v3/`.

        40 consecutive CI runs green after that.
        """,
        ),
    ],
)

SESSIONS["zh-mock-patch"] = (
    "crm-backend",
    [
        t(  # 0
            """
        单元测试里 mock.patch('utils.sms.send_sms') 不生效，跑测试的时候还是真的发了短信出去（测试手机收到了……）
        业务代码 orders/service.py 里是 from utils.sms import send_sms
        """,
            """
        patch 要 patch "使用它的地方"，而不是 "定义它的地方"。`from utils.sms import send_sms` 在导入时把函数对象复制了一份引用到 `orders.service` 模块的命名空间里，你 patch 了 `utils.sms.send_sms`，但 `orders.service.send_sms` 还指向原来的函数。

        改成：

        ```python
        @mock.patch("orders.service.send_sms")
        def test_create_order_sends_sms(mock_send):
            create_order(...)
            mock_send.assert_called_once()
        ```

        另外建议测试环境的短信网关配置成假的地址，双保险。
        """,
        ),
        t(  # 1
            "send_sms 改成 async def 以后 mock 返回的东西不能 await 了",
            """
        对 async 函数要用 AsyncMock，调用它返回一个可以 await 的协程：

        ```python
        @mock.patch("orders.service.send_sms", new_callable=mock.AsyncMock)
        async def test_create_order_sends_sms(mock_send):
            await create_order(...)
            mock_send.assert_awaited_once()
        ```

        Python 3.8 以后 `mock.patch` 发现目标是 async 函数时会自动用 AsyncMock，但显式写出来更清楚。测试函数本身用 pytest-asyncio 的 `@pytest.mark.asyncio`。
        """,
        ),
        t(  # 2
            "谢谢",
            "不客气。",
        ),
    ],
)

SESSIONS["jest-esm"] = (
    "mobile-bff",
    [
        t(  # 0
            """
        jest blows up as soon as a test imports the date helpers:

        Jest encountered an unexpected token
        ...
        Details:
        /home/ci/mobile-bff/node_modules/lodash-es/lodash.js:10
        import * as array from './array.js';
        ^^^^^^
        SyntaxError: Cannot use import statement outside a module
        """,
            """
        Jest runs CommonJS by default and doesn't transform anything in node_modules, but `lodash-es` ships only ES
        modules. Either tell Jest to transform it:

        ```js
        // jest.config.js
        transformIgnorePatterns: ["/node_modules/(?!lodash-es/)"],
        ```

        or import from `lodash` (the CommonJS build) instead. Or move to Vitest, which handles ESM natively.
        """,
        ),
        t(  # 1
            "let's just move to vitest, we're on vite for the admin UI anyway",
            """
        Steps:
        1. `npm i -D vitest @vitest/coverage-v8` and remove jest, ts-jest, babel-jest;
        2. `vitest.config.ts` with `test: { environment: "node", globals: true, setupFiles: ["./test/setup.ts"] }`;
           `globals: true` keeps `describe/it/expect` working without imports;
        3. replace `jest.fn/jest.mock/jest.spyOn` with `vi.fn/vi.mock/vi.spyOn`; note `vi.mock` is hoisted like
           jest.mock but factory functions must return the module shape (`{ default: ... }` for default exports);
        4. `"test": "vitest run"` in package.json.
        """,
            [
                sh(
                    "npm i -D vitest @vitest/coverage-v8 && npm rm jest ts-jest babel-jest @types/jest",
                    "added 38 packages, removed 211 packages",
                )
            ],
        ),
        t(  # 2
            "continue",
            """
        Migrated 64 test files. First run:

        ```
         ✓ test/orders.test.ts (12)
         ✓ test/profile.test.ts (8)
         ❯ test/push.test.ts (5) 2 failed
           × sends a push when the order ships: vi.mock factory did not return "default"
         ❯ test/dates.test.ts (9) 1 failed
           × formats relative dates: expected '2 days ago' to be 'in 2 days'
         Test Files  2 failed | 62 passed (64)
        ```

        push.test.ts: the factory for `../src/fcm` now returns `{ default: { send: vi.fn() } }`. dates.test.ts was a
        real bug hidden by jest's fake timers defaulting to legacy mode: the test used `Date.now()` while the helper
        used `new Date()` from a mocked module; fixed with `vi.setSystemTime`. All 64 files pass, run time 41 s -> 9 s.
        """,
        ),
    ],
)

# ---------------------------------------------------------------- git
SESSIONS["git-rebase-lost"] = (
    "shopfront",
    [
        t(  # 0
            "i did git rebase -i HEAD~6 to squash some fixups and now my last 3 commits (the whole wishlist api) are gone. please tell me they're recoverable",
            """
        They are. Git keeps every position HEAD has been at in the reflog for 90 days, commits included, even when no
        branch points at them anymore. Let's look.
        """,
            [
                sh(
                    "git reflog -n 15",
                    """
            b41c0de HEAD@{0}: rebase (finish): returning to refs/heads/feature/wishlist
            b41c0de HEAD@{1}: rebase (squash): wishlist model
            ...
            9e27a51 HEAD@{7}: commit: wishlist api: add/remove endpoints
            """,
                )
            ],
        ),
        t(  # 1
            "what do i do with that",
            """
        The reflog (15 entries, trimmed):

        ```
        b41c0de HEAD@{0}: rebase (finish): returning to refs/heads/feature/wishlist
        b41c0de HEAD@{1}: rebase (squash): wishlist model
        0aa13f2 HEAD@{2}: rebase (pick): wishlist migrations
        58de7c3 HEAD@{3}: rebase (start): checkout HEAD~6
        4f1e2a9 HEAD@{4}: commit: wishlist api: tests for sharing links
        c7d90b1 HEAD@{5}: commit: wishlist api: share links
        9e27a51 HEAD@{6}: commit: wishlist api: add/remove endpoints
        3b0f6d4 HEAD@{7}: commit (amend): wishlist model
        ```

        `4f1e2a9` (HEAD@{4}) is your branch right before the rebase started, with all three commits. During the
        interactive rebase those three lines were deleted from the todo list (probably a `dd` too many in vim), which
        drops them. Put a safety branch on it first, then reset your branch:

        ```
        git branch rescue/wishlist 4f1e2a9
        git reset --hard 4f1e2a9
        ```

        Then redo the squash more carefully, or squash with `git rebase -i --autosquash` using `fixup!` commits.
        """,
            [
                sh(
                    "git branch rescue/wishlist 4f1e2a9 && git reset --hard 4f1e2a9",
                    "HEAD is now at 4f1e2a9 wishlist api: tests for sharing links",
                )
            ],
        ),
        t(  # 2
            "phew. unrelated: my feature branch was started from develop by mistake, how do i move it onto main without dragging the develop commits along",
            """
        `git rebase --onto` replays only the commits that are on your branch and not on develop:

        ```
        git rebase --onto main develop feature/wishlist
        ```

        Read it as "take the commits in develop..feature/wishlist and replay them onto main". Afterwards
        `git log --oneline main..feature/wishlist` should show only your wishlist commits. Force-push with
        `--force-with-lease` since the branch was already pushed.
        """,
        ),
    ],
)

SESSIONS["zh-git-big-file"] = (
    "ml-serving",
    [
        t(  # 0
            """
        git push 报错推不上去：
        remote: error: File models/ranker/model.bin is 312.45 MB; this exceeds GitHub's file size limit of 100.00 MB
        remote: error: GH001: Large files detected. You may want to try Git Large File Storage - https://git-lfs.github.com.
        ! [remote rejected] main -> main (pre-receive hook declined)
        我已经 git rm 了这个文件再提交，还是一样
        """,
            """
        git rm 只是在新的提交里删掉了它，但之前那个提交里还有这个 312MB 的文件，push 的时候整个历史都要上传，所以还是会被拒。必须改写历史，把它从所有提交里去掉（或者转成 LFS）。

        两种选择：
        - 不需要版本管理这个文件：`git filter-repo --path models/ranker/model.bin --invert-paths`；
        - 需要用 git 管理模型文件：`git lfs migrate import --include="*.bin" --everything`，把历史里的 .bin 全部换成 LFS 指针。
        """,
        ),
        t(  # 1
            "用 lfs migrate 吧，模型还是要跟着代码走",
            """
        执行：

        之后 `git lfs ls-files` 能看到 models/ranker/model.bin。因为改写了历史，所有提交的 hash 都变了，需要 `git push --force-with-lease`，同事们要重新 clone（或者 `git fetch && git reset --hard origin/main`，本地没推的提交先备份）。
        """,
            [
                sh(
                    'git lfs install && git lfs migrate import --include="*.bin" --everything',
                    "migrate: Sorting commits: ..., done.\nmigrate: Rewriting commits: 100% (184/184), done.\nmigrate: Updating refs: ..., done.",
                ),
                sh("git push --force-with-lease origin main", "+ 7c1d2e0...a9f0b11 main -> main (forced update)"),
            ],
        ),
        t(  # 2
            """
        又出新问题：CI 里 docker build，COPY 进镜像的 model.bin 只有 134 字节，服务启动加载模型报错
        _pickle.UnpicklingError: invalid load key, 'v'.
        """,
            """
        134 字节、以 'v' 开头，说明拷进去的是 LFS 指针文件（内容是 `version https://git-lfs.github.com/spec/v1 ...`），不是真正的模型。CI checkout 的时候没有拉取 LFS 对象。

        GitHub Actions 里：

        ```yaml
        - uses: actions/checkout@v4
          with:
            lfs: true
        ```

        其他 CI 在 docker build 之前执行 `git lfs pull`。另外在 Dockerfile 里加一个检查，模型文件小于 1KB 就直接构建失败，避免再把指针文件打进镜像。
        """,
        ),
    ],
)

SESSIONS["git-index-lock"] = (
    "shopfront",
    [
        t(  # 0
            """
        fatal: Unable to create '/home/dev/shopfront/.git/index.lock': File exists.

        Another git process seems to be running in this repository, e.g.
        an editor opened by 'git commit'. Please make sure all processes
        are terminated then try again.
        """,
            """
        A git command crashed or was killed (or is still running, e.g. a `git commit` waiting for the editor, or the
        IDE's background `git status`) and left its lock file behind. Check that no git process is running
        (`pgrep -a git`); if none, delete the stale lock: `rm .git/index.lock`.
        """,
            [sh("pgrep -a git", ""), sh("rm .git/index.lock")],
        ),
        t(  # 1
            "ok thx. another one: .env got committed last week, i added it to .gitignore but git still shows it as modified",
            """
        Sure.

        `.gitignore` only affects untracked files; `.env` is already tracked. Remove it from the index but keep the
        file on disk:

        ```
        git rm --cached .env
        git commit -m "stop tracking .env"
        ```

        It's still in last week's commits, so treat every secret in it as leaked and rotate them (Stripe key, DB
        password, SENTRY_DSN is harmless). Rewriting history is optional once the secrets are rotated.
        """,
        ),
    ],
)

SESSIONS["zh-git-cherry"] = (
    "crm-backend",
    [
        t(  # 0
            "在 hotfix/login-timeout 分支修了一个 bug（一个提交），现在要把这个修复也带到 release/2.3，但是不想把 main 上其他的东西带过去",
            """
        用 cherry-pick 只拿这一个提交：

        ```
        git checkout release/2.3
        git cherry-pick -x 5d2e9f1
        ```

        `-x` 会在提交信息里加一行 "(cherry picked from commit 5d2e9f1...)"，以后查问题知道它从哪来。如果有冲突，解决后 `git add` 再 `git cherry-pick --continue`。
        """,
        ),
        t(  # 1
            "以后 release/2.3 合回 main 的时候这个提交会不会重复",
            """
        不会出问题：cherry-pick 出来的提交 hash 不同，但改动内容一样，合并时 git 发现两边做了相同的修改，不会产生冲突，最多历史里看到两个内容相同的提交。`git log --cherry-pick --oneline main...release/2.3` 可以过滤掉这种等价提交。
        """,
        ),
        t(  # 2
            "另外 2.3 里价格计算突然不对了，2.2 是好的，中间有 140 多个提交，怎么快速找到是哪个提交引入的",
            """
        用 git bisect 二分查找，140 个提交大概 8 次就能定位。如果有能复现问题的测试，可以全自动：

        ```
        git bisect start
        git bisect bad release/2.3
        git bisect good v2.2.0
        git bisect run pytest tests/test_price.py -x -q
        ```

        `git bisect run` 会根据测试命令的退出码自动标记 good/bad，最后打印出第一个坏的提交。结束后 `git bisect reset` 回到原来的分支。
        """,
            [
                sh(
                    "git bisect start && git bisect bad release/2.3 && git bisect good v2.2.0 && git bisect run pytest tests/test_price.py -x -q",
                    "a3c81f0e is the first bad commit\ncommit a3c81f0e\n    优惠券叠加逻辑重构",
                )
            ],
        ),
        t(  # 3
            "找到了，是优惠券叠加那个重构",
            "好，a3c81f0e 把满减和折扣券的计算顺序换了：先打折再满减变成了先满减再打折。先 `git bisect reset`，然后在这个提交上补一个回归测试，再修计算顺序。",
        ),
    ],
)

# ---------------------------------------------------------------- logging
SESSIONS["structlog-json"] = (
    "payments-api",
    [
        t(  # 0
            "we need json logs for datadog, and every log line of a request should carry the request id. fastapi app",
            """
        Let me check what's configured today: `app/main.py` calls `logging.basicConfig(level=INFO)` and nothing else, and uvicorn runs with its default log config.

        structlog with contextvars does both:

        ```python
        structlog.configure(processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.dict_tracebacks,
            structlog.processors.JSONRenderer(),
        ])

        @app.middleware("http")
        async def bind_request_id(request, call_next):
            request_id = request.headers.get("X-Request-ID") or uuid.uuid4().hex
            structlog.contextvars.clear_contextvars()
            structlog.contextvars.bind_contextvars(request_id=request_id, path=request.url.path)
            response = await call_next(request)
            response.headers["X-Request-ID"] = request_id
            return response
        ```

        contextvars are per asyncio task, so concurrent requests don't see each other's ids.
        """,
        ),
        t(  # 1
            "app logs are json now but uvicorn's access log is still plain text, and every access line shows up twice",
            """
        Uvicorn configures its own loggers (`uvicorn`, `uvicorn.error`, `uvicorn.access`) with their own handlers,
        and `uvicorn.access` also propagates to the root logger, where your new JSON handler prints it a second time.

        Either drop uvicorn's access log (`--no-access-log`) and log requests yourself in the middleware (with the
        request id and duration, which the access log doesn't have anyway), or pass a `log_config` dict that routes
        `uvicorn.access` through a structlog `ProcessorFormatter` with `propagate: False`.
        """,
        ),
        t(  # 2
            "first option. ok do it",
            """
        Done: `uvicorn app.main:app --no-access-log --log-config logging.yaml` in the Dockerfile, where the yaml only
        formats `uvicorn.error` as JSON. The middleware logs one line per request:

        ```json
        {"event": "request", "method": "POST", "path": "/v1/payouts", "status": 201, "duration_ms": 84.1, "request_id": "5f0c2b7e9d4a4b1e8a3f6c2d1e0b9a87", "level": "info", "timestamp": "2025-03-04T10:21:07.412Z"}
        ```
        """,
            [
                edit("app/logging.py", "structlog config + request middleware logging method/path/status/duration"),
                edit("Dockerfile", "CMD uvicorn app.main:app --no-access-log --log-config logging.yaml"),
            ],
        ),
    ],
)

SESSIONS["zh-log-dup"] = (
    "crm-backend",
    [
        t(  # 0
            "python 项目里每条日志都打印了两遍，一模一样的两行",
            """
        最常见的原因：你给自己的 logger（比如 `logging.getLogger("crm")`）加了一个 StreamHandler，同时 root logger 上也有 handler（`logging.basicConfig()` 加的），日志先被自己的 handler 输出，再向上传播（propagate）到 root 又输出一次。

        解决：
        - 只在 root 上配 handler，模块里只 `getLogger(__name__)` 不加 handler；或者
        - 自己的 logger 设 `logger.propagate = False`。

        另一个常见原因是 `setup_logging()` 被调用了两次（比如 import 时执行），每次都 addHandler，handler 就叠加了。
        """,
        ),
        t(  # 1
            "好了。还有 celery worker 里的日志没有写进日志文件，只在控制台",
            """
        celery worker 启动时会接管 root logger（清掉已有的 handler，换成它自己的），所以你在 Django 里配置的文件 handler 被去掉了。

        两种办法：
        1. 配置 `worker_hijack_root_logger = False`，celery 就不动 root logger；
        2. 或者连接 `setup_logging` 信号，由你自己来配置日志，celery 看到有人处理这个信号就不会再配置：

        ```python
        from celery.signals import setup_logging

        @setup_logging.connect
        def config_loggers(*args, **kwargs):
            logging.config.dictConfig(settings.LOGGING)
        ```
        """,
        ),
        t(  # 2
            "ok",
            "好的，用的第 2 种，worker 日志现在也进了 /var/log/crm/worker.log。",
        ),
    ],
)

SESSIONS["loki-cardinality"] = (
    "infra",
    [
        t(  # 0
            """
        promtail keeps logging errors and we're missing logs in grafana:

        level=warn component=client msg="error sending batch, will retry" status=429 error="server returned HTTP status 429 Too Many Requests (429): Maximum active stream limit exceeded, reduce the number of active streams (reduce labels or reduce label values), or contact your Loki administrator to see if the limit can be increased, user: 'fake'"
        """,
            """
        Every unique combination of label values is a separate stream in Loki. Looking at the promtail pipeline, last
        week's change added `user_id` and `request_path` as labels via the `labels` stage, so every user and every
        URL creates a new stream: ~180k active streams against the default limit of 5,000 per tenant.

        Labels should be low-cardinality things you select by (app, namespace, env, level). Remove `user_id` and
        `request_path` from the `labels` stage; they stay in the JSON log line and you filter at query time.
        """,
        ),
        t(  # 1
            "how do i query by user_id then",
            """
        Parse at query time with `| json` and filter on the extracted field:

        ```
        {app="checkout", env="prod"} | json | user_id = "u_81723"
        ```

        And for example the count of 5xx per route over the last hour:

        ```
        sum by (route) (count_over_time({app="checkout", env="prod"} | json | status >= 500 [1h]))
        ```

        Queries that filter on parsed fields scan more data than label selectors, so always narrow by labels and time first.
        """,
        ),
    ],
)

SESSIONS["zh-filebeat-multiline"] = (
    "crm-backend",
    [
        t(  # 0
            "Java 服务的异常堆栈在 Kibana 里被拆成了几十条，每一行 at com.xxx... 都是单独一条日志，根本没法看",
            """
        Filebeat 默认按行采集，每一行是一个事件。要配置多行合并：以时间戳开头的行才是新日志，其他行（堆栈的 at ...、Caused by:）拼到上一条后面：

        ```yaml
        filebeat.inputs:
          - type: filestream
            id: crm-app
            paths: [/var/log/crm/*.log]
            parsers:
              - multiline:
                  type: pattern
                  pattern: '^\\d{4}-\\d{2}-\\d{2}'
                  negate: true
                  match: after
        ```

        `negate: true` + `match: after` 的意思是：不匹配日期开头的行，追加到前一个匹配行的后面。
        """,
        ),
        t(  # 1
            "合并好了。但是 Kibana 上显示的时间和日志里写的时间差了 8 小时",
            """
        日志里的时间是本地时间（Asia/Shanghai，没有写时区），Elasticsearch 把没有时区的时间当成 UTC 解析存成 @timestamp，Kibana 再按浏览器时区 +8 显示，就多了 8 小时。

        在 ingest pipeline（或 Logstash 的 date 过滤器）里解析时间的时候指定时区：

        ```json
        { "date": { "field": "log_time", "formats": ["yyyy-MM-dd HH:mm:ss.SSS"], "timezone": "Asia/Shanghai", "target_field": "@timestamp" } }
        ```

        更好的做法是应用日志直接输出带时区的 ISO8601 时间（logback 的 `%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX}`）。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- performance
SESSIONS["n-plus-one"] = (
    "shopfront",
    [
        t(  # 0
            "the admin orders page takes 6s. django-debug-toolbar says 312 queries, most of them look like SELECT ... FROM customers_customer WHERE id = ...",
            """
        I'll open the admin view and the template, then look at the SQL panel of the toolbar.

        Classic N+1: the list view loads 100 orders in one query, then the template touches `order.customer.name`
        and `order.items.all` for each row, which costs one query per order for the customer and one per order for
        the items (plus one per item for `item.product`).

        Load the relations up front:

        ```python
        Order.objects.select_related("customer", "shipping_address").prefetch_related("items__product")
        ```

        `select_related` joins the foreign keys into the main query; `prefetch_related` runs one extra query per
        relation and stitches the results in Python.
        """,
        ),
        t(  # 1
            "page is fine now (9 queries). but GET /api/orders/ for the mobile app still takes 1.8s",
            """
        The viewset already uses the same queryset, so it isn't the queries; the profile says 1.5 s is spent in the
        serializer. `OrderSerializer.get_item_count` is a `SerializerMethodField` doing `obj.items.count()`, and
        `get_is_vip` calls `obj.customer.orders.filter(status="paid").count()` for every row: that's 200 COUNT
        queries that don't show in the admin page.

        Move both into the queryset with annotations:

        ```python
        .annotate(item_count=Count("items", distinct=True),
                  customer_paid_orders=Subquery(paid_count_sq))
        ```
        """,
            [
                sh(
                    "py-spy record -o api_orders.svg -d 30 --pid $(pgrep -f 'gunicorn.*shop.wsgi' | head -1)",
                    "Wrote flamegraph data to 'api_orders.svg'.",
                )
            ],
        ),
        t(  # 2
            "continue",
            """
        Done; the serializer reads `item_count` and `customer_paid_orders` from the annotations. `GET /api/orders/?page_size=100`:
        1.8 s / 214 queries before, 120 ms / 4 queries after. Added a test with `django_assert_max_num_queries(6)`
        around the endpoint so the N+1 can't come back silently.
        """,
        ),
    ],
)

SESSIONS["py-spy-profile"] = (
    "dataplat",
    [
        t(  # 0
            "nightly ETL went from 20 min to over 2 hours. nobody changed the code (allegedly). how do i see where it's stuck while it runs",
            """
        Attach py-spy to the running process, no restart or code change needed:

        The main thread is inside `dateutil.parser.parse`, called from `DataFrame.apply` in `normalize_events()`.
        py-spy's sampling shows 87% of the time there.
        """,
            [
                sh(
                    "sudo py-spy dump --pid 31337",
                    """
            Thread 31337 (active): "MainThread"
                parse (dateutil/parser/_parser.py:1368)
                <lambda> (etl/normalize.py:44)
                apply (pandas/core/apply.py:1174)
                normalize_events (etl/normalize.py:44)
            """,
                ),
                sh(
                    "sudo py-spy record -o etl.svg --pid 31337 --duration 120",
                    "Wrote flamegraph data to 'etl.svg'. Samples: 11877 Errors: 0",
                ),
            ],
        ),
        t(  # 1
            "yeah line 44 is df['ts'].apply(lambda s: dateutil.parser.parse(s)). it was always like that though",
            """
        The code didn't change, the data did: the upstream export started sending 9.4M events per night instead of
        1.1M (the mobile team added tracking events). Row-by-row `dateutil.parser.parse` guesses the format on
        every call, ~60 µs per row.

        Use the vectorized parser with an explicit format:

        ```python
        df["ts"] = pd.to_datetime(df["ts"], format="%Y-%m-%d %H:%M:%S%z", utc=True)
        ```

        On the 9.4M rows: 9 minutes -> 3.1 seconds.
        """,
        ),
        t(  # 2
            "now it's fast but memory spikes to 14GB at the merge with the users table and the box OOMs",
            """
        The merge key `user_id` is an `object` (Python string) column on both sides, and pandas materialises the full
        result with all columns of both frames. Three things:

        1. read with `dtype_backend="pyarrow"` so strings are Arrow strings (about a third of the memory);
        2. select only the user columns you need before merging (`users[["user_id", "country", "plan"]]`);
        3. make `event_type` and `country` categoricals.

        Peak RSS is 3.2 GB now.
        """,
        ),
    ],
)

SESSIONS["zh-memory-leak"] = (
    "pricing-svc",
    [
        t(  # 0
            "FastAPI 服务的内存一直涨，从 300M 涨到 3G 左右，几天就被 OOM kill 重启一次，怎么查是哪里泄漏",
            """
        我先看一下最近的部署记录和内存曲线：内存是线性增长的，和请求量成正比，重启后从 300M 重新开始涨，这种形状一般是某个缓存或者全局容器只增不减。

        用标准库的 tracemalloc 对比两个时间点的内存快照，看哪一行代码分配的内存在持续增长。加一个仅内网可访问的调试接口：

        ```python
        import tracemalloc
        tracemalloc.start(25)
        _baseline = None

        @app.get("/debug/mem")
        def mem():
            global _baseline
            snap = tracemalloc.take_snapshot()
            if _baseline is None:
                _baseline = snap
                return {"ok": "baseline taken"}
            stats = snap.compare_to(_baseline, "lineno")[:15]
            return [str(s) for s in stats]
        ```

        先调用一次拿基线，跑几个小时业务流量后再调用，把结果贴给我。
        """,
        ),
        t(  # 1
            """
        /app/services/pricing.py:88: size=1.9 GiB (+1.8 GiB), count=4123551 (+4101220), average=483 B
        /usr/local/lib/python3.12/site-packages/pydantic/main.py:212: size=61.2 MiB (+58.0 MiB), count=310112 (+301877), average=207 B
        /usr/local/lib/python3.12/json/decoder.py:353: size=12.1 MiB (+0.3 MiB), count=88231 (+2102), average=144 B
        """,
            """
        很明确：pricing.py 第 88 行涨了 1.8GB。那一行是 `_quote_cache[(sku, region, customer_tier, currency)] = quote`，一个模块级的 dict 当缓存，只写不删，key 的组合越来越多，永远不会释放。

        改成有上限、有过期时间的缓存：

        ```python
        from cachetools import TTLCache
        _quote_cache = TTLCache(maxsize=100_000, ttl=300)
        ```

        多线程访问的话再加一把锁（cachetools 本身不是线程安全的）。
        """,
            [edit("app/services/pricing.py", "_quote_cache = TTLCache(maxsize=100_000, ttl=300) with a threading.Lock")],
        ),
        t(  # 2
            "gunicorn 那边有没有兜底的办法，万一还有别的泄漏",
            """
        有：让 worker 处理一定数量的请求后自动重启，泄漏的内存随进程释放：

        ```python
        # gunicorn.conf.py
        max_requests = 2000
        max_requests_jitter = 200
        ```

        jitter 让各个 worker 不在同一时刻重启。这只是兜底，不能代替修复泄漏；另外容器的 memory limit 和告警也要设好。
        """,
        ),
    ],
)

SESSIONS["gunicorn-timeout"] = (
    "payments-api",
    [
        t(  # 0
            """
        the monthly statement export 502s, and the logs show

        [2025-02-03 09:14:22 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:4411)
        [2025-02-03 09:14:22 +0000] [4411] [ERROR] Error handling request /v1/statements/export?month=2025-01
        [2025-02-03 09:14:23 +0000] [1] [ERROR] Worker (pid:4411) was sent SIGKILL! Perhaps out of memory?
        """,
            """
        Let me find the handler for `/v1/statements/export` and check the gunicorn settings in the Dockerfile.

        The export renders a PDF for every transaction of the month synchronously inside the request. Gunicorn's
        arbiter kills a sync worker that hasn't notified it for `--timeout` seconds (default 30), so any export
        longer than 30 s dies and the proxy returns 502.

        Raising the timeout to 120 would hide it for now, but the export will keep growing, and while it runs that
        worker serves nothing else. Better: make the endpoint enqueue a job (we have RQ already), return 202 with a
        job id, and let the client poll `/v1/statements/export/{job_id}` or get an email with the download link.
        """,
        ),
        t(  # 1
            "agreed, background job. also how many gunicorn workers should we run, the pods have 4 cpus",
            """
        For sync workers the usual starting point is `(2 x CPU) + 1` = 9. This API spends most of its time waiting on
        Postgres and the bank APIs, so threads help more than processes: `--worker-class gthread --workers 4 --threads 8`
        gives 32 concurrent requests with 4 processes' memory. Remember each worker process has its own SQLAlchemy pool
        (pool_size x workers per pod counts against Postgres' connection limit).
        """,
        ),
        t(  # 2
            "ok",
            """
        gunicorn.conf.py:

        ```python
        workers = 4
        worker_class = "gthread"
        threads = 8
        timeout = 30
        graceful_timeout = 20
        keepalive = 5
        ```

        And `POST /v1/statements/export` now returns 202 with the RQ job id; the worker renders the PDF and uploads it to S3.
        """,
            [
                {"tool": "Write", "args": {"path": "gunicorn.conf.py"}, "result": "written"},
                edit("app/api/statements.py", "enqueue export job, return 202 with job id"),
            ],
        ),
    ],
)

SESSIONS["zh-api-p99"] = (
    "pricing-svc",
    [
        t(  # 0
            "调用第三方支付渠道的查询接口，平均 200ms，但是 p99 有 3 秒，对方说他们那边都是 100ms 以内",
            """
        看了代码：每次请求都 `async with httpx.AsyncClient() as client:` 新建一个客户端，相当于每次都新建 TCP 连接并做一次 TLS 握手，对方在另一个机房，握手就要几百毫秒；偶尔遇到丢包重传，就到了秒级。

        改成进程级复用一个客户端（连接池），并且把超时设清楚：

        ```python
        client = httpx.AsyncClient(
            base_url=settings.PAY_BASE_URL,
            timeout=httpx.Timeout(5.0, connect=1.0),
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
        )
        ```

        在 FastAPI 的 lifespan 里创建、关闭。
        """,
        ),
        t(  # 1
            "好多了，p99 到了 600ms。还有一些请求卡在 DNS 解析上，抓包看到同一个域名查了好几次",
            """
        这是 Kubernetes 里 `/etc/resolv.conf` 的 `ndots:5` 导致的：域名里的点少于 5 个，会先依次拼上 search 域（`xxx.default.svc.cluster.local`、`xxx.svc.cluster.local`、`xxx.cluster.local`……）去查，全部失败后才查真正的域名，A 和 AAAA 各一遍。

        办法：
        - 外部域名写成 FQDN，末尾加点：`api.paychannel.com.`；
        - 或者在 Pod 里设 `dnsConfig: {options: [{name: ndots, value: "2"}]}`；
        - 集群开 NodeLocal DNSCache，减少 CoreDNS 压力。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- deployment
SESSIONS["k8s-rollout-502"] = (
    "infra",
    [
        t(  # 0
            """
        10.4.1.23 - - [11/Apr/2025:14:02:11 +0000] "POST /api/checkout HTTP/1.1" 502 150 "-" "ShopApp/5.2 (iOS 17.4)" 1873 0.002 [shop-checkout-80] [] 10.8.3.41:8080 0 0.001 502
        10.4.1.23 - - [11/Apr/2025:14:02:11 +0000] "GET /api/cart HTTP/1.1" 502 150 "-" "Mozilla/5.0" 912 0.001 [shop-checkout-80] [] 10.8.3.41:8080 0 0.001 502
        10.4.2.9 - - [11/Apr/2025:14:02:12 +0000] "POST /api/checkout HTTP/1.1" 502 150 "-" "ShopApp/5.2 (Android 14)" 1901 0.003 [shop-checkout-80] [] 10.8.3.41:8080 0 0.002 502
        2025/04/11 14:02:12 [error] 412#412: *88121 connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://10.8.3.41:8080/api/checkout"

        every time we deploy checkout there's a burst of these 502s from the ingress for 15-20 seconds. rolling update is configured
        """,
            """
        Two gaps, one at each end of the rollout:

        - New pods: there's no `readinessProbe`, so a pod counts as ready as soon as the container starts, and the
          ingress sends traffic while the app is still loading (~12 s). Add a readiness probe on `/healthz/ready`.
        - Old pods: when a pod is deleted, SIGTERM and the removal from the Service endpoints happen in parallel, so
          nginx-ingress keeps routing to it for a few seconds after it stopped accepting. Add
          `lifecycle: preStop: exec: command: ["sleep", "10"]` and `terminationGracePeriodSeconds: 40`.

        With `maxUnavailable: 0, maxSurge: 1` capacity never drops during the rollout.
        """,
        ),
        t(  # 1
            "URGENT: the release that just went out (v2.14.0) breaks the payment form. roll it back NOW",
            """
        Rolled back to the previous ReplicaSet (v2.13.2); all 6 pods are serving the old version. The rollout took
        48 s. The bad image stays in the registry; `kubectl rollout history` shows the revisions if you need to go
        back further.
        """,
            [
                sh("kubectl rollout undo deployment/checkout -n shop", "deployment.apps/checkout rolled back"),
                sh(
                    "kubectl rollout status deployment/checkout -n shop --timeout=120s",
                    'deployment "checkout" successfully rolled out',
                ),
            ],
        ),
        t(  # 2
            "thanks, that saved us",
            "Glad it did. Before re-releasing, pin the deploy to the image digest so a rollback always lands on exactly what was running.",
        ),
    ],
)

SESSIONS["terraform-lock"] = (
    "infra",
    [
        t(  # 0
            """
        terraform plan in CI fails:

        Error: Error acquiring the state lock

        Error message: ConditionalCheckFailedException: The conditional request failed
        Lock Info:
          ID:        7c1e9d2a-4b0f-8e3a-b2d6-91f4e0c6a1d3
          Path:      tf-state-prod/network/terraform.tfstate
          Operation: OperationTypeApply
          Who:       runner@gh-actions-7f2c
          Version:   1.7.5
          Created:   2025-04-11 02:13:40.112 +0000 UTC
        """,
            """
        The lock in the DynamoDB table belongs to an apply that started at 02:13 from a GitHub Actions runner. That
        job was cancelled when someone pushed again (the workflow had `cancel-in-progress: true`), so terraform was
        killed before it could release the lock.

        First make sure nothing is actually applying (no running workflow for network/, nobody running locally),
        then release it by ID:

        ```
        terraform force-unlock 7c1e9d2a-4b0f-8e3a-b2d6-91f4e0c6a1d3
        ```

        Then run a plan: if the killed apply got halfway, the plan shows what's left.
        """,
            [
                sh(
                    "terraform -chdir=network force-unlock -force 7c1e9d2a-4b0f-8e3a-b2d6-91f4e0c6a1d3",
                    "Terraform state has been successfully unlocked!",
                )
            ],
        ),
        t(  # 1
            "how do we stop two pipelines from applying to prod at the same time, and stop CI from killing applies halfway",
            """
        GitHub Actions concurrency, one group per state, queued instead of cancelled:

        ```yaml
        concurrency:
          group: terraform-prod-network
          cancel-in-progress: false
        ```

        A second run waits until the first finishes. `cancel-in-progress: true` is what killed the apply; never use
        it for jobs that hold a state lock.
        """,
        ),
    ],
)

SESSIONS["zh-nginx-502"] = (
    "report-service",
    [
        t(  # 0
            """
        线上偶尔 502，nginx error.log 里是：
        2025/05/06 09:31:02 [warn] 2231#2231: *771201 an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/3/41/0000004413 while reading upstream
        2025/05/06 09:31:44 [error] 2231#2231: *771388 upstream prematurely closed connection while reading response header from upstream, client: 10.2.0.14, server: report.example.com, request: "GET /api/report/daily HTTP/1.1", upstream: "http://127.0.0.1:8000/api/report/daily"
        """,
            """
        意思是 nginx 已经把请求转给了后端（127.0.0.1:8000），但还没收到响应头，后端就把连接关了。通常是后端进程在处理这个请求的时候崩了或者被杀了。

        去看同一时间点后端的日志：uvicorn/gunicorn 有没有 worker 重启、有没有 OOM（`dmesg | grep -i kill`）。这个日报接口一次性把整个月的数据读进内存，很可能是 worker 内存超限被杀了。
        """,
        ),
        t(  # 1
            "导出 Excel 的那个接口，数据多的时候刚好 60 秒就 504 Gateway Time-out",
            """
        正好 60 秒是 nginx `proxy_read_timeout` 的默认值：60 秒内后端没有返回数据，nginx 就断开并返回 504。

        临时可以对这个接口单独调大：

        ```nginx
        location /api/report/export {
            proxy_pass http://127.0.0.1:8000;
            proxy_read_timeout 300s;
        }
        ```

        但根本的办法是改成异步：提交导出任务，后台生成文件放到对象存储，前端轮询任务状态或者完成后下载。
        """,
        ),
        t(  # 2
            "上传 20M 的 Excel 报 413 Request Entity Too Large",
            "nginx 默认 `client_max_body_size 1m`，超过就返回 413。在对应的 server 或 location 里加 `client_max_body_size 50m;`，然后 `nginx -t && nginx -s reload`。",
            [sh("nginx -t && nginx -s reload", "nginx: configuration file /etc/nginx/nginx.conf test is successful")],
        ),
    ],
)

SESSIONS["zh-k8s-configmap"] = (
    "pricing-svc",
    [
        t(  # 0
            "改了 ConfigMap 里的配置，kubectl apply 成功了，但是 pod 里的程序读到的还是旧配置",
            """
        我先看一下 deployment 的 yaml 里 ConfigMap 是怎么用的。

        要看配置是怎么进到 pod 里的：

        - 通过 `env` / `envFrom` 注入成环境变量的：环境变量只在容器启动时读取一次，ConfigMap 改了不会更新，必须重启 pod；
        - 挂载成卷（volume）的：kubelet 会在一分钟左右内把文件更新掉，但用了 `subPath` 挂载的不会更新；而且程序自己得重新读文件。

        你们是 envFrom，所以需要重启：`kubectl rollout restart deployment/pricing-svc -n pricing`，会按滚动更新的方式逐个重建 pod。
        """,
            [sh("kubectl rollout restart deployment/pricing-svc -n pricing", "deployment.apps/pricing-svc restarted")],
        ),
        t(  # 1
            "用的是 helm，能不能改了配置自动重启",
            """
        可以，在 Deployment 模板的 pod annotations 里加配置文件内容的哈希，配置一变哈希就变，pod 模板变了 helm upgrade 就会触发滚动更新：

        ```yaml
        spec:
          template:
            metadata:
              annotations:
                checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        ```
        """,
        ),
    ],
)

SESSIONS["systemd-deploy"] = (
    "tg-bot",
    [
        t(  # 0
            "my telegram bot runs on a VPS with nohup python bot.py &. sometimes it's just dead in the morning, and it doesn't come back after a reboot",
            """
        nohup doesn't restart anything: if the process crashes (or gets OOM-killed) it stays dead. Run it as a
        systemd service instead:

        ```ini
        # /etc/systemd/system/tgbot.service
        [Unit]
        Description=Telegram bot
        After=network-online.target
        Wants=network-online.target

        [Service]
        User=bot
        WorkingDirectory=/opt/tgbot
        EnvironmentFile=/opt/tgbot/.env
        ExecStart=/opt/tgbot/.venv/bin/python bot.py
        Restart=always
        RestartSec=5

        [Install]
        WantedBy=multi-user.target
        ```

        Then `sudo systemctl daemon-reload && sudo systemctl enable --now tgbot`.
        """,
        ),
        t(  # 1
            """
        tgbot.service: Main process exited, code=exited, status=203/EXEC
        tgbot.service: Failed with result 'exit-code'.
        """,
            """
        203/EXEC means systemd couldn't execute the ExecStart program at all: the path is wrong or not executable.
        On your box the venv lives in `/opt/tgbot/venv`, not `.venv`. Fix ExecStart to
        `/opt/tgbot/venv/bin/python /opt/tgbot/bot.py` (absolute paths for both), then
        `systemctl daemon-reload && systemctl restart tgbot`.
        """,
            [
                sh("ls -la /opt/tgbot", "drwxr-xr-x 5 bot bot 4096 venv\n-rw-r--r-- 1 bot bot 8120 bot.py"),
                sh(
                    "sudo systemctl daemon-reload && sudo systemctl restart tgbot && systemctl status tgbot --no-pager",
                    "Active: active (running)",
                ),
            ],
        ),
        t(  # 2
            "running. where do the logs go now, print() output used to go to nohup.out",
            """
        stdout and stderr go to the journal:

        ```
        journalctl -u tgbot -f                  # follow
        journalctl -u tgbot --since "1 hour ago"
        journalctl -u tgbot -p err -b           # errors since boot
        ```

        Set `PYTHONUNBUFFERED=1` in the .env, otherwise print() output shows up in batches.
        """,
        ),
    ],
)

# ---------------------------------------------------------------- noise and mixed sessions
SESSIONS["standup-notes"] = (
    "shopfront",
    [
        t(  # 0
            """
        write my weekly update from these commits, short bullet points, non-technical enough for the PM

        a41c2d1 fix session TTL in redis backend
        77be010 backfill script for session expiry
        9c0e3f2 canonical host middleware (www -> apex)
        13aa9d7 csrf: trusted origins with scheme
        c2d81e4 playwright: frameLocator for stripe, warmup
        e0f9a12 admin orders: select_related/prefetch
        5d7730b api orders: annotate counts
        """,
            """
        **This week**
        - Fixed checkout failures caused by the cache filling up: user sessions were being stored without an expiry
          date; they now expire after 14 days and old ones were cleaned up.
        - Fixed the Safari login loop: visitors coming in on www. are now sent to the main domain first.
        - Fixed admin and API errors after the framework upgrade (security check on form submissions).
        - Made the automated checkout test reliable (it was failing about 1 run in 5).
        - Admin orders page: 6 s -> under 1 s; mobile orders API: 1.8 s -> 0.12 s.
        """,
        ),
        t(  # 1
            "make it shorter, 3 bullets max",
            """
        - Checkout and login (Safari) issues fixed.
        - Order pages and API are 5-15x faster.
        - Checkout end-to-end test no longer flaky.
        """,
        ),
    ],
)

SESSIONS["zh-weekly-report"] = (
    "report-service",
    [
        t(  # 0
            """
        帮我整理一下这周的周报，素材如下：
        - 订单列表慢查询，加了联合索引，改游标分页
        - 上传目录权限问题
        - nginx 502/504/413 几个问题
        - 日报接口 OOM
        要求：分成"已完成""进行中""风险"三部分
        """,
            """
        **已完成**
        1. 订单列表接口优化：新增 (shop_id, created_at) 联合索引，分页方式改为游标分页，接口耗时从 8 秒降到 40 毫秒左右；
        2. 修复报表服务上传目录的权限问题（容器用户与宿主机目录属主不一致）；
        3. 调整 nginx 配置：导出接口超时时间、上传文件大小上限。

        **进行中**
        1. 导出接口改为异步任务，避免长时间占用连接；
        2. 日报接口内存占用过高导致进程被杀，正在改为分批读取。

        **风险**
        1. 异步导出需要前端配合改交互，排期待确认。
        """,
        ),
        t(  # 1
            "不错，再加一句下周计划：上线异步导出",
            "已加在最后：**下周计划**：异步导出功能完成联调并上线，老的同步导出接口保留两周后下线。",
        ),
    ],
)

SESSIONS["ctx-continued"] = (
    "ragsearch",
    [
        t(  # 0
            """
        This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
        Analysis: the user is moving the ragsearch API image build from a laptop to CI and adding a healthcheck.
        1. Primary request: build and push the API image in GitHub Actions for amd64 only; add a container healthcheck; keep the image small.
        2. Key technical concepts: multi-stage Dockerfile, uv for installs, HEALTHCHECK instruction, GHCR login with GITHUB_TOKEN.
        3. Files: Dockerfile (multi-stage, done), .github/workflows/image.yml (in progress).
        4. Pending: the workflow's push step fails with "denied: installation not allowed to Create organization package".
        Please continue the conversation from where we left it off without asking the user any further questions.
        """,
            """
        Continuing with the failing push to GHCR. The workflow's `GITHUB_TOKEN` has only the default read permission
        for packages, and the package doesn't exist yet, so it can't be created. Grant it in the workflow:

        ```yaml
        permissions:
          contents: read
          packages: write
        ```

        and log in with `docker/login-action@v3` using `registry: ghcr.io`, `username: ${{ github.actor }}`,
        `password: ${{ secrets.GITHUB_TOKEN }}`. If the organization restricts package creation, an org admin has to
        allow it under Settings → Packages, or create the package once and give this repository write access.
        """,
        ),
        t(  # 1
            "continue",
            """
        The push works. The image job now:

        - builds with `docker/build-push-action@v6`, `platforms: linux/amd64`, cache `type=gha,mode=max`;
        - tags `ghcr.io/acme/ragsearch-api:${{ github.sha }}` and `:main`;
        - the Dockerfile's `HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1`
          (curl is installed in the runtime stage; 1.2 MB).

        Final image: 312 MB (was 1.9 GB from the laptop build with the dev dependencies).
        """,
        ),
        t(  # 2
            "yes commit it",
            "Committed as `ci: build and push api image to GHCR with healthcheck` on branch ci/image-build, and opened PR #212.",
            [
                sh(
                    'git add Dockerfile .github/workflows/image.yml && git commit -m "ci: build and push api image to GHCR with healthcheck" && gh pr create --fill',
                    "https://github.com/acme/ragsearch/pull/212",
                )
            ],
        ),
    ],
)

# ---------------------------------------------------------------- near-miss distractors (v2)
# Sessions that share identifiers and topics with the judged ones without
# answering their queries (checked query by query when they were added).
SESSIONS["pg-vacuum-bloat"] = (
    "payments-api",
    [
        t(  # 0
            "the ledger_entries table is 180GB but only has ~40GB of actual data according to the row count estimate. disk alert fired",
            """
        Let me check the dead tuple counts and when autovacuum last ran on it.

        `n_dead_tup` is 610 million and the last autovacuum finished 19 days ago. Autovacuum keeps starting on this
        table but can't remove the dead rows: something holds back the xmin horizon. Usually that's a very old
        transaction. Let me look for it.
        """,
            [
                sh(
                    'psql $PAYMENTS_DB -c "SELECT relname, n_live_tup, n_dead_tup, last_autovacuum FROM pg_stat_user_tables ORDER BY n_dead_tup DESC LIMIT 5;"',
                    "ledger_entries | 402118833 | 610287114 | 2025-03-02 04:11:09",
                )
            ],
        ),
        t(  # 1
            "ok look",
            """
        Found it: a connection from the BI tool (Metabase) has been `idle in transaction` since 19 days ago, exactly
        when vacuum stopped making progress:

        ```
          pid  | usename  | state               | xact_age         | left(query, 50)
        -------+----------+---------------------+------------------+----------------------------------
         20931 | metabase | idle in transaction | 19 days 02:14:51 | SELECT count(*) FROM ledger_entr
        ```

        Terminate it with `SELECT pg_terminate_backend(20931);`, and set `idle_in_transaction_session_timeout = '10min'`
        for the metabase role so it can't happen again. Vacuum will then clean up, but it won't give the space back
        to the OS: the table file stays 180 GB, with free space inside for new rows.
        """,
            [
                sh(
                    "psql $PAYMENTS_DB -c \"SELECT pid, usename, state, now() - xact_start AS xact_age, left(query, 50) FROM pg_stat_activity WHERE state = 'idle in transaction' ORDER BY xact_start;\""
                )
            ],
        ),
        t(  # 2
            "we need the disk back though",
            """
        `VACUUM FULL` rewrites the table but holds an ACCESS EXCLUSIVE lock for the whole rewrite (hours at this size),
        so no. Use `pg_repack`: it builds a new copy in the background and only takes a short lock at the end to swap.

        ```
        pg_repack --host=$PGHOST --dbname=payments --table=public.ledger_entries --jobs=4 --no-superuser-check
        ```

        It needs free space for a full copy (~45 GB after the vacuum), which you have.
        """,
        ),
    ],
)

SESSIONS["redis-rate-limit"] = (
    "shopfront",
    [
        t(  # 0
            "add rate limiting to the coupon redeem endpoint, 10 attempts per user per minute. we already have redis",
            """
        A fixed window counter is the simplest: `INCR ratelimit:redeem:{user_id}:{minute}` and `EXPIRE` it after 60 s;
        reject when the counter passes 10. The INCR and the EXPIRE must happen together, or a crash between them leaves
        a key with no TTL that blocks the user forever, so run both in a small Lua script (atomic on the server):

        ```lua
        local n = redis.call('INCR', KEYS[1])
        if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
        return n
        ```
        """,
        ),
        t(  # 1
            "people can still do 20 in 2 seconds around the minute boundary",
            """
        That's the weakness of fixed windows: 10 at 12:00:59 and 10 at 12:01:00. A sliding window log fixes it: keep a
        sorted set per user with the timestamps of recent attempts; on each attempt remove entries older than 60 s
        (`ZREMRANGEBYSCORE`), count (`ZCARD`), and add the new one (`ZADD`) if under the limit, again inside one Lua
        script. Memory is one entry per attempt, fine at 10/minute.
        """,
        ),
        t(  # 2
            "ok do it",
            "Replaced the fixed-window script with the sliding-window one, `RateLimited` maps to 429 with `Retry-After`, and the test hammers the endpoint across a minute boundary: 10 accepted, 10 rejected.",
            [edit("shop/coupons/ratelimit.py", "sliding window with ZREMRANGEBYSCORE/ZCARD/ZADD in one Lua script")],
        ),
    ],
)

SESSIONS["nginx-websocket"] = (
    "infra",
    [
        t(  # 0
            "the live order feed websocket disconnects after exactly 60 seconds of no messages. locally (no nginx) it stays up",
            """
        Let me look at the nginx site config for the feed.

        Nginx closes a proxied connection when the upstream sends nothing for `proxy_read_timeout` (60 s by default);
        for a websocket that's any quiet minute. Two parts:

        ```nginx
        location /ws/ {
            proxy_pass http://orders_feed;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
        }
        ```

        and have the server send a ping every 25-30 s anyway, since load balancers in front of nginx have their own idle timeouts (the ALB's is 60 s too).
        """,
        ),
        t(  # 1
            "done, stays connected now. thanks",
            "Good. Keep the client's reconnect with backoff anyway; deploys and node drains will still close sockets.",
        ),
    ],
)

SESSIONS["k8s-hpa"] = (
    "infra",
    [
        t(  # 0
            """
        HPA for search-api never scales, TARGETS shows <unknown>/70%

        $ kubectl get hpa -n search
        NAME         REFERENCE               TARGETS         MINPODS   MAXPODS   REPLICAS   AGE
        search-api   Deployment/search-api   <unknown>/70%   2         10        2          3d
        """,
            """
        `<unknown>` means the HPA can't read CPU metrics. `kubectl describe hpa` says
        `failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API`.

        Two usual causes, and you have both: metrics-server isn't installed in this cluster, and the deployment's
        containers have no `resources.requests.cpu`; utilization is a percentage of the request, so without a request
        there's nothing to compute.
        """,
            [
                sh(
                    "kubectl describe hpa search-api -n search",
                    "Warning  FailedGetResourceMetric  horizontal-pod-autoscaler  failed to get cpu utilization",
                )
            ],
        ),
        t(  # 1
            "installed metrics-server and added requests: cpu 500m. it scales now but flaps up and down every couple of minutes",
            """
        Scale-down is too eager for this bursty traffic. Add a behavior section so it only scales down after 5 minutes
        of low load, and at most one pod per minute:

        ```yaml
        behavior:
          scaleDown:
            stabilizationWindowSeconds: 300
            policies:
              - type: Pods
                value: 1
                periodSeconds: 60
        ```

        `kubectl top pods -n search` shows the per-pod CPU the HPA sees.
        """,
        ),
    ],
)

SESSIONS["docker-multistage"] = (
    "payments-api",
    [
        t(  # 0
            "the api image is 1.4GB, most of it seems to be build stuff. can we slim it",
            """
        I'll look at the Dockerfile and the layer sizes first.

        The image installs gcc, libpq-dev and the whole build toolchain to compile psycopg2 and cryptography, and keeps
        them. A multi-stage build compiles wheels in one stage and installs only the wheels in a slim runtime stage:

        ```dockerfile
        FROM python:3.12 AS build
        COPY requirements.txt .
        RUN pip wheel --wheel-dir /wheels -r requirements.txt

        FROM python:3.12-slim
        RUN apt-get update && apt-get install -y --no-install-recommends libpq5 && rm -rf /var/lib/apt/lists/*
        COPY --from=build /wheels /wheels
        RUN pip install --no-cache-dir /wheels/* && rm -rf /wheels
        COPY . /app
        ```
        """,
            [
                sh(
                    "docker history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' payments-api:latest | head -8",
                    "612MB\tRUN apt-get install -y build-essential libpq-dev\n388MB\tRUN pip install -r requirements.txt",
                )
            ],
        ),
        t(  # 1
            "nice, 210MB. the wheel stage still re-downloads everything on each build though",
            """
        Keep pip's cache between builds with a BuildKit cache mount; it lives on the builder, not in the image:

        ```dockerfile
        RUN --mount=type=cache,target=/root/.cache/pip pip wheel --wheel-dir /wheels -r requirements.txt
        ```

        And add a `.dockerignore` (`.git`, `.venv`, `tests/fixtures/big`, `*.pyc`) so `COPY . /app` doesn't invalidate
        for files the image doesn't need.
        """,
        ),
    ],
)

SESSIONS["gha-cache-miss"] = (
    "ragsearch",
    [
        t(  # 0
            "our actions/cache step for the huggingface models never hits, it says 'Cache not found for input keys' on every single run",
            """
        The key is `models-${{ hashFiles('**/requirements*.txt', 'models.lock') }}-${{ github.run_id }}`. `github.run_id`
        is different on every run, so the exact key can never match a previous save. Drop it from the key and add a
        `restore-keys` prefix so a partial match still restores the older cache:

        ```yaml
        - uses: actions/cache@v4
          with:
            path: ~/.cache/huggingface
            key: models-${{ hashFiles('models.lock') }}
            restore-keys: |
              models-
        ```
        """,
        ),
        t(  # 1
            "hits now. cache is 3.8GB though, is that a problem",
            "The repository cache limit is 10 GB; older entries get evicted when it's exceeded, and branches can only restore caches from their own branch or the default branch. At 3.8 GB you're fine, but don't also cache pip with a per-branch key or they'll evict each other.",
        ),
    ],
)

SESSIONS["celery-retry"] = (
    "payments-api",
    [
        t(  # 0
            "payout webhooks are sometimes delivered twice. the celery task sends the http request, and sometimes the task just runs again an hour later",
            """
        With the Redis broker and `acks_late=True`, a task that isn't acknowledged within the broker's
        `visibility_timeout` (1 hour by default) is handed to another worker. Your webhook task has a 30-minute retry
        backoff in the same task, so long-running retries exceed the visibility timeout and get redelivered while the
        first copy is still alive.

        Fixes: make the task idempotent (store a delivery id and skip if already sent), keep each attempt short and use
        `self.retry(countdown=...)` instead of sleeping inside the task, and raise `broker_transport_options = {"visibility_timeout": 4 * 3600}`
        above the longest countdown you use.
        """,
        ),
        t(  # 1
            "and if the receiver is down for a day?",
            "Cap retries with `max_retries=12` and exponential backoff (`retry_backoff=True, retry_backoff_max=3600`); after the last one, mark the delivery `failed` and show it in the merchant dashboard with a manual 'resend' button.",
        ),
    ],
)

SESSIONS["sentry-noise"] = (
    "shopfront",
    [
        t(  # 0
            "sentry quota ran out in 4 days. 80% of the events are Invalid HTTP_HOST header errors from bots and a few noisy timeouts",
            """
        Filter them before they're sent:

        ```python
        def before_send(event, hint):
            exc = hint.get("exc_info", (None, None))[1]
            if isinstance(exc, DisallowedHost):
                return None
            return event

        sentry_sdk.init(dsn=..., before_send=before_send, traces_sample_rate=0.05)
        ```

        Better still, reject unknown hosts at the load balancer so Django never sees them. And `traces_sample_rate=1.0`
        was also eating the performance quota; 5% is plenty.
        """,
        ),
        t(  # 1
            "thanks",
            'Welcome. Also set `ignore_logger("django.security.DisallowedHost")` so the log-based integration doesn\'t report them a second time.',
        ),
    ],
)

SESSIONS["log-rotation"] = (
    "tg-bot",
    [
        t(  # 0
            "bot.log grew to 9GB on the vps and filled the disk. I log with logging.FileHandler",
            """
        FileHandler never rotates. Either rotate in Python:

        ```python
        handler = RotatingFileHandler("bot.log", maxBytes=50_000_000, backupCount=5)
        ```

        or leave the file handler and let logrotate do it, with `copytruncate` because the process keeps the file open:

        ```
        /opt/tgbot/bot.log {
            daily
            rotate 7
            compress
            copytruncate
            missingok
        }
        ```
        """,
        ),
        t(  # 1
            "since it runs under systemd now, do I even need the file",
            "Not really: stdout goes to the journal, which is already size-capped (`SystemMaxUse=` in journald.conf, 10% of the disk by default). Log to stdout only and read it with journalctl; drop the FileHandler.",
        ),
    ],
)

SESSIONS["search-ilike-slow"] = (
    "shopfront",
    [
        t(  # 0
            "product search endpoint takes 3-4 seconds: WHERE name ILIKE '%' || :q || '%'. there's a btree index on name",
            """
        A btree index can't help a pattern with a leading wildcard, so every search scans all 2.1M products. For
        substring search use a trigram index:

        ```sql
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        CREATE INDEX CONCURRENTLY products_name_trgm ON products USING gin (name gin_trgm_ops);
        ```

        The same ILIKE query then uses a bitmap index scan: 3.4 s -> 18 ms in EXPLAIN ANALYZE on staging.
        """,
            [
                sh(
                    "psql $SHOP_DB -c \"EXPLAIN ANALYZE SELECT id FROM products WHERE name ILIKE '%garden hose%';\"",
                    "Bitmap Heap Scan on products ... Execution Time: 18.114 ms",
                )
            ],
        ),
        t(  # 1
            "users also want typo tolerance, 'garden hoes' should find hoses",
            "Trigram similarity gives that too: `WHERE name % :q ORDER BY similarity(name, :q) DESC LIMIT 20` uses the same GIN index; tune `pg_trgm.similarity_threshold` (0.3 default) on real queries.",
        ),
    ],
)

SESSIONS["fastapi-rbac"] = (
    "payments-api",
    [
        t(  # 0
            "we need roles: viewers can read payouts, only finance_admin can approve them. fastapi",
            """
        A dependency factory keeps it declarative:

        ```python
        def require_role(*roles: str):
            def checker(user: User = Depends(current_user)) -> User:
                if not set(roles) & set(user.roles):
                    raise HTTPException(status_code=403, detail="forbidden")
                return user
            return checker

        @router.post("/payouts/{payout_id}/approve")
        def approve(payout_id: int, user: User = Depends(require_role("finance_admin"))): ...
        ```

        401 is for "who are you?" (no or invalid credentials), 403 for "I know who you are and you can't".
        """,
        ),
        t(  # 1
            "approvals need four eyes, the creator can't approve their own payout",
            'That\'s a rule on the object, not a role: check `payout.created_by != user.id` inside `approve` and return 403 with `detail="cannot approve own payout"`; log both ids in the audit log.',
        ),
    ],
)

SESSIONS["git-lockfile-conflict"] = (
    "shopfront",
    [
        t(  # 0
            "every rebase conflicts in package-lock.json, hundreds of lines. how do people deal with this",
            """
        Don't resolve lockfile conflicts by hand. Take one side and regenerate:

        ```
        git checkout --theirs package-lock.json   # during a rebase, 'theirs' is your commit being replayed
        npm install --package-lock-only
        git add package-lock.json && git rebase --continue
        ```

        `npm install --package-lock-only` recomputes the lockfile from package.json without touching node_modules.
        """,
        ),
        t(  # 1
            "can git do that automatically",
            "Partly: npm ships a merge driver. `npx npm-merge-driver install --global` registers it and adds `package-lock.json merge=npm-merge-driver` to your git attributes; it resolves the lockfile by re-running npm. Each developer has to install it, so it's a convenience, not a guarantee.",
        ),
    ],
)

SESSIONS["search-eval"] = (
    "ragsearch",
    [
        t(  # 0
            "we keep tuning chunk size and the reranker by vibes. how do we measure retrieval properly",
            """
        Build a judged set: 150-300 real queries from the logs, and for each one the chunks (or documents) a human
        marks as relevant. Then compute per change:

        - recall@k: share of queries with at least one relevant chunk in the top k (k = what the LLM sees, e.g. 8);
        - MRR: mean of 1/rank of the first relevant chunk;
        - nDCG@10 if you grade relevance (0/1/2).

        Freeze the judgements before you look at results, otherwise you end up tuning the set to the system.
        """,
        ),
        t(  # 1
            "continue, write the harness",
            """
        Added `eval/retrieval.py`: loads `eval/judged.jsonl` (`{"query": ..., "relevant": [chunk ids]}`), runs the
        retriever with the current config, prints recall@1/5/10 and MRR per query type and overall, and writes the
        misses to `eval/misses.md`. Baseline on the 212 judged queries: recall@8 0.74, MRR 0.58.
        """,
            [
                {"tool": "Write", "args": {"path": "eval/retrieval.py"}, "result": "written"},
                sh("python eval/retrieval.py --judged eval/judged.jsonl", "recall@1 0.49 recall@5 0.69 recall@10 0.77 MRR 0.58"),
            ],
        ),
    ],
)

SESSIONS["zh-redis-lock"] = (
    "flash-sale",
    [
        t(  # 0
            "定时任务部署了 3 个实例，每天凌晨的对账任务会跑三遍，怎么保证只有一个实例执行",
            """
        用 Redis 分布式锁：

        ```python
        ok = r.set("lock:reconcile:2025-03-04", instance_id, nx=True, ex=600)
        if not ok:
            return  # 别的实例已经在跑
        ```

        `nx=True` 保证只有一个实例能设置成功，`ex=600` 保证实例崩了锁也会自动过期。释放锁的时候要先判断值是不是自己的 instance_id，再删除，这两步要放在 Lua 脚本里原子执行，否则可能删掉别人的锁。
        """,
        ),
        t(  # 1
            "对账有时候要跑 20 分钟，超过 600 秒锁就过期了",
            "两种办法：锁的过期时间设得比最长执行时间长（比如 1 小时）；或者像 Redisson 的看门狗那样，持有锁期间起一个后台线程每隔 ex/3 秒续期一次，任务结束或者进程退出就不再续期。Java 项目直接用 Redisson 的 RLock 就行。",
        ),
    ],
)

SESSIONS["zh-compose-network"] = (
    "report-service",
    [
        t(  # 0
            "docker compose 里 app 容器连 mysql，配置写的 localhost:3306，一直连不上，宿主机上用 localhost 是能连的",
            """
        容器里的 localhost 是容器自己，不是宿主机，也不是 mysql 容器。同一个 compose 文件里的服务在同一个网络上，用服务名访问：`mysql:3306`（服务名就是 compose 里 services 下面的名字）。

        `ports: "3306:3306"` 只是把端口暴露给宿主机，容器之间通信不需要它。
        """,
        ),
        t(  # 1
            "容器里要访问宿主机上跑的 redis 呢",
            'Docker Desktop 上直接用 `host.docker.internal`；Linux 上在 compose 里加 `extra_hosts: ["host.docker.internal:host-gateway"]`，然后同样用这个域名访问。另外宿主机上的 redis 要监听 0.0.0.0 或 docker0 网桥的地址，只监听 127.0.0.1 的话容器访问不到。',
        ),
    ],
)

SESSIONS["zh-frontend-bundle"] = (
    "admin-console",
    [
        t(  # 0
            "后台管理系统首屏要加载 6 秒，打包出来的 index.js 有 4MB",
            """
        先用 `rollup-plugin-visualizer` 看看体积都在哪里。从报告看：echarts 整包 1.1MB、moment 的全部语言包 600KB、element-plus 全量引入 900KB。

        1. 路由懒加载：`component: () => import('./views/Report.vue')`，每个页面单独打包，首屏只加载需要的；
        2. echarts 按需引入（`echarts/core` + 用到的图表），moment 换成 dayjs；
        3. element-plus 用 unplugin-vue-components 自动按需导入；
        4. nginx 开 gzip 或者构建时直接输出 .gz / .br 文件。
        """,
        ),
        t(  # 1
            "继续",
            "改完以后首屏 JS 从 4MB 降到 380KB（gzip 后 120KB），首屏时间 6 秒降到 1.2 秒。报表页第一次进入时会多加载一个 1.3MB 的 chunk，加了 loading 状态。",
        ),
    ],
)

SESSIONS["zh-pytest-fixture"] = (
    "crm-backend",
    [
        t(  # 0
            "好几个测试文件都要用同一个测试客户和 token，现在每个文件都复制了一份创建代码",
            """
        放到 conftest.py 里做成 fixture，pytest 会自动发现，同目录及子目录的测试文件都能直接用参数名引用：

        ```python
        # tests/conftest.py
        @pytest.fixture
        def customer(db):
            return CustomerFactory(name="测试客户")

        @pytest.fixture
        def auth_headers(customer):
            return {"Authorization": f"Bearer {issue_token(customer)}"}
        ```
        """,
        ),
        t(  # 1
            "同一个测试要跑很多组不同的手机号格式",
            """
        用参数化：

        ```python
        @pytest.mark.parametrize("phone, ok", [
            ("13800138000", True),
            ("+8613800138000", True),
            ("1380013800", False),
        ])
        def test_validate_phone(phone, ok):
            assert validate_phone(phone) is ok
        ```

        每组参数是一个独立的测试用例，失败时会显示是哪一组。
        """,
        ),
    ],
)

# ---------------------------------------------------------------- writing

CORPUS_DAY = datetime(2026, 10, 1, 12)


def turn_keys() -> list[str]:
    return [f"{sid}:{i}" for sid, (_, turns) in SESSIONS.items() for i in range(len(turns))]


def _tool_block(tool: Tool) -> str:
    lines = [f"[Tool call] {tool['tool']}"]
    for key, value in tool.get("args", {}).items():
        lines.append(f"{key}: {' '.join(str(value).split())}")
    block = "\n".join(lines) + "\n"
    result = "\n".join(line for line in tool.get("result", "").splitlines() if line.strip())
    if result:
        block += f"\n[Tool result]\n{result}\n"
    return block


def render_turn(turn: tuple) -> str:
    user, assistant = turn[0], turn[1]
    tools = turn[2] if len(turn) > 2 else []
    if tools:
        first, _, rest = assistant.partition("\n\n")
        body = first + "\n" + "\n".join(_tool_block(tool) for tool in tools)
        if rest:
            body += "\n" + rest
    else:
        body = assistant
    return f"user:\n<user_query>\n{user}\n</user_query>\n\nassistant:\n{body}"


def write_corpus(root: Path) -> Path:
    """Write every session as a Cursor agent transcript under root; returns root."""
    for n, (sid, (project, turns)) in enumerate(SESSIONS.items()):
        folder = root / f"Users-dev-code-{project}" / "agent-transcripts"
        folder.mkdir(parents=True, exist_ok=True)
        text = "\n\n".join(render_turn(turn) for turn in turns) + "\n"
        path = folder / f"{sid}.txt"
        path.write_text(text, encoding="utf-8")
        stamp = CORPUS_DAY.timestamp() - n * 86400
        os.utime(path, (stamp, stamp))
    return root
