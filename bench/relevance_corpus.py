"""Hand-written coding conversations for the relevance benchmark (English and Chinese).

Each session is a list of (user, assistant) turns; `write_corpus` lays them out
as Cursor agent transcripts, so the real parser, pairing and indexer read them.
Topics overlap on purpose (an English and a Chinese session about caching,
Docker, Git, logging, ...) so that every query has close distractors.
Turn keys are "<session>:<turn index>", the unit the judgements name.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

# session id -> (project, turns)
SESSIONS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "pg-migration": (
        "infra",
        [
            (
                "The alembic migration 0042_add_orders_index failed halfway on staging. How do I roll it back safely?",
                "First check what actually got applied: `SELECT version_num FROM alembic_version;`. If the version is still 0041, the "
                "upgrade aborted and you only need to drop whatever half-built objects exist, e.g. `DROP INDEX CONCURRENTLY IF EXISTS "
                "ix_orders_customer_id;`. If it says 0042, run `alembic downgrade -1`. Take a pg_dump of the affected tables before you touch anything.",
            ),
            (
                "Can we make migrations transactional so this doesn't happen again?",
                "Postgres supports transactional DDL, so set `transaction_per_migration=True` in `context.configure()` in env.py. Each revision "
                "then commits or rolls back as a unit. The exception is `CREATE INDEX CONCURRENTLY`, which cannot run inside a transaction: put "
                "it in its own revision wrapped in `op.get_context().autocommit_block()`.",
            ),
            (
                "write a pre-deploy check that fails CI if a migration has no downgrade",
                "A small script: load every module under `migrations/versions`, inspect `downgrade` with `inspect.getsource`, and exit 1 when its "
                "body is only `pass`. Run it as a job before `alembic upgrade head` in the deploy pipeline.",
            ),
        ],
    ),
    "redis-cache": (
        "webapp",
        [
            (
                "Product page is slow, every request hits postgres. Add a Redis cache in front of get_product.",
                "Wrap it in a decorator: build the key `product:{id}`, `redis.get(key)`; on a miss call the function, `redis.setex(key, 300, "
                "json.dumps(row))`. In `update_product` delete the key after the commit so readers never see stale prices for long.",
            ),
            (
                "we get a thundering herd when a popular key expires, hundreds of requests rebuild it at once",
                "Let one request rebuild: `SET product:42:lock 1 NX PX 5000`; the winner recomputes, the others serve the stale copy or wait "
                "50 ms and retry. Add jitter to the TTL (300 plus random 0-60 s) so hot keys do not expire together, or use probabilistic early "
                "recomputation.",
            ),
            (
                "how do I rotate the redis password without downtime",
                "With Redis 6 ACLs a user can have two passwords: `ACL SETUSER app >newpass`, roll the new secret out to every service, then "
                "`ACL SETUSER app <oldpass` to remove the old one. On Redis 5 and older, requirepass has only one value, so you need a short "
                "window or a proxy.",
            ),
        ],
    ),
    "flaky-tests": (
        "webapp",
        [
            (
                "test_checkout_total fails maybe one run in ten on CI but never locally",
                "That smells like test ordering or time. Run `pytest -p randomly -p no:cacheprovider` with the failing seed from the CI log, "
                "freeze the clock with freezegun around the discount code that checks `datetime.now()`, and make sure fixtures do not share rows "
                "in the database between tests.",
            ),
            (
                "The test suite takes 14 minutes, what can we do",
                "Profile first with `pytest --durations=20`. Then run in parallel with pytest-xdist (`-n auto`), keep the test database between "
                "runs with `--reuse-db`, replace the real S3 calls with moto, and mark the two end-to-end tests `@pytest.mark.slow` so they run "
                "only nightly.",
            ),
        ],
    ),
    "jwt-auth": (
        "webapp",
        [
            (
                "Users get 401 after we rotated the signing keys. The error says 'kid mismatch'.",
                "The API caches the JWKS and still only knows the old key. During a rotation publish both keys in the JWKS for at least one token "
                "lifetime, and when a token arrives with an unknown `kid`, refetch the JWKS once before rejecting it.",
            ),
            (
                "Where should the refresh token be stored in the browser?",
                "In an httpOnly, Secure, SameSite=Strict cookie scoped to `/auth/refresh`. Not in localStorage: any XSS could read it there. The "
                "short-lived access token can stay in memory.",
            ),
            (
                "add rate limiting to the login endpoint",
                "Use slowapi with a limit per IP and per username: `@limiter.limit('5/minute')` on `/login`, answer 429 with a Retry-After "
                "header, and after ten failures for one account require a captcha.",
            ),
        ],
    ),
    "docker-build": (
        "infra",
        [
            (
                "Our Docker image for the python app is 2.3 GB. How do I shrink it?",
                "Use a multi-stage build: compile wheels in a `python:3.11` builder stage, copy only the installed site-packages into "
                "`python:3.11-slim`. Add `--no-cache-dir` to pip, and a .dockerignore that excludes .git, node_modules and the data folder. "
                "That usually gets it under 300 MB.",
            ),
            (
                "docker build reinstalls all requirements every time even if I only change a .py file",
                "Layer order: `COPY requirements.txt .` then `RUN pip install -r requirements.txt`, and only then `COPY . .`. With BuildKit you "
                "can also keep pip's cache across builds: `RUN --mount=type=cache,target=/root/.cache/pip pip install -r requirements.txt`.",
            ),
        ],
    ),
    "k8s-oom": (
        "infra",
        [
            (
                "pod keeps restarting with OOMKilled exit code 137",
                "137 is SIGKILL from the kernel's OOM killer: the container went over its memory limit (512Mi). Check `kubectl describe pod` "
                "and the container_memory_working_set_bytes graph. Either raise the limit or find the leak; for the JVM service set "
                "`-XX:MaxRAMPercentage=75` so the heap respects the container limit.",
            ),
            (
                "how do I set up a liveness probe that doesn't kill the pod while it is still starting",
                "Add a startupProbe with `failureThreshold: 30` and `periodSeconds: 10`: the kubelet waits up to five minutes and only then "
                "starts the livenessProbe. Keep the liveness endpoint cheap; it must not call the database.",
            ),
        ],
    ),
    "qdrant-collection": (
        "vectordb",
        [
            (
                "create a qdrant collection for 384-dim embeddings with cosine distance",
                "`client.create_collection(collection_name='docs', vectors_config=VectorParams(size=384, distance=Distance.COSINE))`. Upsert "
                "in batches of a few hundred points with `client.upsert`, and give each point a payload with the source document id.",
            ),
            (
                "search is fine but filtering by tenant_id is slow",
                "Create a payload index: `client.create_payload_index('docs', 'tenant_id', field_schema=KeywordIndexParams(type='keyword', "
                "is_tenant=True))`. Without it every filtered search checks payloads point by point.",
            ),
            (
                "how do snapshots work? I want nightly backups",
                "`POST /collections/docs/snapshots` writes a snapshot file under the snapshots path (QDRANT__STORAGE__SNAPSHOTS_PATH). A cron "
                "job can create one nightly, copy it to S3 and delete it locally; restore with `PUT /collections/docs/snapshots/recover`.",
            ),
        ],
    ),
    "hybrid-search": (
        "vectordb",
        [
            (
                "How do I combine BM25 and dense vectors in one query?",
                "Store both as named vectors (a sparse `bm25` one with the IDF modifier and a dense one), then use the Query API with two "
                "prefetches, one per vector, and `query=FusionQuery(fusion=Fusion.RRF)` to merge them.",
            ),
            (
                "RRF puts a document that only the dense retriever found way too low",
                "With reciprocal rank fusion a point seen by one retriever gets at most 1/(k+1), less than anything both lists contain. Lower k, "
                "prefetch deeper, or switch to distribution-based score fusion (DBSF), which normalises the raw scores instead of ranks.",
            ),
        ],
    ),
    "react-rerender": (
        "webapp",
        [
            (
                "My React list re-renders all 500 rows every time I type in the search box",
                "The rows get new props on every keystroke. Wrap `Row` in `React.memo`, pass handlers through `useCallback`, keep the filter "
                "text out of the rows, and virtualise the list with react-window so only the visible rows mount. Debounce the input by 150 ms.",
            ),
            (
                "useEffect runs twice when the component mounts",
                "That is React 18 StrictMode in development: it mounts, unmounts and mounts again to surface effects without cleanup. Return a "
                "cleanup function (abort the fetch with an AbortController); in production it runs once.",
            ),
        ],
    ),
    "css-layout": (
        "webapp",
        [
            (
                "center a div horizontally and vertically",
                "On the parent: `display: flex; justify-content: center; align-items: center; min-height: 100vh;` or with grid `display: grid; "
                "place-items: center;`.",
            ),
            (
                "the sticky header covers the section title when I jump to an anchor link",
                "Give the targets `scroll-margin-top: 64px` (the header's height), or set `scroll-padding-top` on the html element.",
            ),
        ],
    ),
    "git-mistakes": (
        "webapp",
        [
            (
                "I committed an API key and already pushed it to GitHub",
                "Revoke the key at the provider right now, that is what matters. Then remove it from history with `git filter-repo "
                "--replace-text secrets.txt` (or BFG), force-push, and ask collaborators to re-clone. GitHub secret scanning may already have "
                "flagged it.",
            ),
            (
                "undo the last commit but keep my changes",
                "`git reset --soft HEAD~1` moves the branch back one commit and keeps the changes staged; `--mixed` keeps them unstaged.",
            ),
            (
                "merge conflict in package-lock.json, hundreds of lines",
                "Do not edit it by hand. Take one side (`git checkout --theirs package-lock.json`), run `npm install` so npm regenerates the "
                "lock from package.json, and commit the result.",
            ),
        ],
    ),
    "python-async": (
        "tools",
        [
            (
                "I have 100 URLs to fetch with aiohttp but they run one after another. Make them concurrent, at most 10 at a time.",
                "Create the tasks up front and gather them, with an `asyncio.Semaphore(10)` around each request: `async with sem: async with "
                "session.get(url) as r: return await r.text()`, then `await asyncio.gather(*(fetch(u) for u in urls))`.",
            ),
            (
                "RuntimeError: This event loop is already running (in Jupyter)",
                "Jupyter already runs an event loop, so `asyncio.run()` fails. In a notebook cell just `await main()`; in old code you can "
                "apply `nest_asyncio`.",
            ),
        ],
    ),
    "pandas-memory": (
        "data-pipeline",
        [
            (
                "read_csv on a 6 GB file crashes with MemoryError",
                "Read it in pieces: `pd.read_csv(path, chunksize=100_000, usecols=[...], dtype={'country': 'category'})` and aggregate each "
                "chunk. Or use polars `pl.scan_csv(path)` which streams lazily, or convert the file to Parquet once.",
            ),
            (
                "groupby then apply is really slow on 20 million rows",
                "`apply` calls a Python function per group. Express it with built-in aggregations (`agg`, `transform`) that run in C, or move "
                "the job to polars or DuckDB. Sorting by the key first also helps.",
            ),
        ],
    ),
    "airflow-dag": (
        "data-pipeline",
        [
            (
                "when I deploy the new DAG airflow starts runs for every day since start_date",
                "That is catchup. Set `catchup=False` on the DAG so only the latest interval runs, and pick a start_date close to today.",
            ),
            (
                "pass a value from one task to the next",
                "Use XCom: with the TaskFlow API the return value of a `@task` function is pushed automatically and you pass it as an argument "
                "to the next task. Keep it small; XComs live in the metadata database.",
            ),
        ],
    ),
    "rust-borrow": (
        "tools",
        [
            (
                "cannot borrow `self.items` as mutable because it is also borrowed as immutable",
                "You hold a reference from `self.items.iter()` while calling `self.items.push`. Collect what you need first (`let ids: Vec<_> = "
                "...collect();`), then mutate; or index by position instead of holding references.",
            ),
            (
                "when should I use Arc<Mutex<T>> and when RwLock",
                "RwLock pays off when reads vastly outnumber writes and the critical sections are long; otherwise a Mutex is simpler and often "
                "faster. Both need Arc to share across threads.",
            ),
        ],
    ),
    "logging-setup": (
        "webapp",
        [
            (
                "structured JSON logs from FastAPI with the request id in every line",
                "Use structlog with a JSON renderer; a middleware reads or creates `X-Request-ID` and binds it with "
                "`structlog.contextvars.bind_contextvars(request_id=...)` so every log line of that request carries it.",
            ),
            (
                "the log file filled the whole disk last night",
                "Rotate: `RotatingFileHandler(path, maxBytes=50_000_000, backupCount=5)`, or let logrotate handle it. In containers, log to "
                "stdout and let the runtime rotate.",
            ),
        ],
    ),
    "gh-actions": (
        "infra",
        [
            (
                "cache pip dependencies in GitHub Actions",
                "`actions/setup-python@v5` with `cache: 'pip'` caches the wheel cache keyed on requirements files. For a venv cache use "
                "actions/cache keyed on the hash of the lock file.",
            ),
            (
                "run the workflow only when something under backend/ changes",
                "`on: push: paths: ['backend/**']` (and the same under pull_request).",
            ),
        ],
    ),
    "rag-eval": (
        "ragdocs",
        [
            (
                "how do I measure whether my retrieval is actually any good",
                "Label a set of real queries with the chunks that answer them, then compute recall@k and MRR for each retriever setting. Fifty "
                "queries is enough to see big differences; keep the set fixed between runs.",
            ),
            (
                "the bot states facts that are not in the retrieved chunks",
                "Tell it to answer only from the context and to say when the answer is not there, ask for citations of chunk ids, lower the "
                "temperature, and check groundedness on a sample.",
            ),
        ],
    ),
    "nginx-proxy": (
        "infra",
        [
            (
                "nginx returns 413 Request Entity Too Large when users upload files",
                "Raise `client_max_body_size 50m;` in the server or location block; the default is 1 MB.",
            ),
            (
                "the websocket connection through nginx drops after exactly 60 seconds",
                'Pass the upgrade headers (`proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";`) and raise '
                "`proxy_read_timeout 3600s;`; or send a ping every 30 s from the client.",
            ),
        ],
    ),
    "tz-reports": (
        "data-pipeline",
        [
            (
                "the daily report shows yesterday's orders for customers in Sydney",
                "The report cuts days at UTC midnight. Store timestamps in UTC but compute day boundaries in the customer's zone with "
                "`zoneinfo.ZoneInfo('Australia/Sydney')`, or group by `created_at AT TIME ZONE tz` in SQL.",
            ),
        ],
    ),
    "sqlite-locked": (
        "tools",
        [
            (
                "sqlite3.OperationalError: database is locked when two worker processes write",
                "Switch to WAL (`PRAGMA journal_mode=WAL`), set `PRAGMA busy_timeout=5000`, and keep write transactions short; or funnel all "
                "writes through one writer process.",
            ),
        ],
    ),
    "ts-types": (
        "webapp",
        [
            (
                "type an object whose keys come from a union of string literals",
                "`type Status = 'open' | 'closed'; const labels: Record<Status, string> = {...}` or a mapped type `{ [K in Status]: string }`.",
            ),
            (
                "Property 'id' does not exist on type 'never'",
                "TypeScript narrowed the variable to never, often an array initialised as `[]` without a type. Annotate it (`const rows: Row[] "
                "= []`) or check the discriminated union branches.",
            ),
        ],
    ),
    "zh-rag-chunking": (
        "ragdocs",
        [
            (
                "RAG 的文档分块应该怎么切？按固定长度还是按段落？",
                "建议按段落和标题切分，每块三百到五百字，相邻分块重叠五十字左右，这样检索时上下文不会断开。表格和代码块不要从中间切开。",
            ),
            (
                "分块太小的时候检索到的内容缺少上下文怎么办",
                "可以用父子分块：用小块做检索，命中后返回它所属的大块；或者把文档标题和章节路径拼到每个分块前面再做向量化。",
            ),
        ],
    ),
    "zh-db-rollback": (
        "infra",
        [
            (
                "线上数据库迁移失败了，怎么回滚？",
                "先暂停发布，确认迁移执行到了哪一步。如果版本号已经更新，执行对应的 downgrade 脚本；如果只执行了一半，手动检查表结构，删除建了一半的索引。"
                "以后每个迁移都要写回滚脚本，并在测试环境先演练。",
            ),
            (
                "给大表加索引的时候锁表太久，业务都卡住了",
                "PostgreSQL 用 CREATE INDEX CONCURRENTLY，不会阻塞写入；MySQL 可以用 gh-ost 或 pt-online-schema-change。数据回填分批做，避免长事务。",
            ),
        ],
    ),
    "zh-pets": (
        "petbot",
        [
            ("狗吃什么", "狗可以吃狗粮、肉类和部分蔬菜，不要喂巧克力、葡萄和洋葱。"),
            ("猫吃什么", "猫是肉食动物，适合吃猫粮、鱼肉和煮熟的鸡肉，要保证饮水充足。"),
            ("我家的猫喜欢鱼", "可以适量喂鱼，注意去刺，不要长期只喂生鱼。"),
        ],
    ),
    "zh-vector-db": (
        "vectordb",
        [
            (
                "向量数据库选型：Qdrant、Milvus 和 pgvector 怎么选？",
                "数据量在一百万以内、已经在用 Postgres 的话，pgvector 最省事；需要复杂过滤和混合检索可以选 Qdrant；上亿规模、需要分布式再考虑 Milvus。",
            ),
            (
                "Qdrant 按租户过滤的时候查询变慢了",
                "给租户字段建 payload 索引，类型选 keyword，并打开 is_tenant；否则每次过滤都要逐条检查 payload。",
            ),
        ],
    ),
    "zh-docker": (
        "infra",
        [
            (
                "Docker 镜像太大了，有什么办法缩小",
                "用多阶段构建，运行阶段换成 slim 基础镜像；pip 安装加 --no-cache-dir；写好 .dockerignore，不要把 .git 和测试数据打进镜像。",
            ),
            (
                "容器里的时间不对，日志时间差了八个小时",
                "容器默认是 UTC。设置环境变量 TZ=Asia/Shanghai 并安装 tzdata，或者把宿主机的 /etc/localtime 挂载进去。",
            ),
        ],
    ),
    "zh-python-perf": (
        "data-pipeline",
        [
            (
                "Python 脚本处理一千万行数据太慢了，要跑好几个小时",
                "不要逐行循环。用 pandas 的向量化操作或者 polars，能用 SQL 的交给数据库；必须逐行的部分可以用 numba 或者分块并行处理。",
            ),
            (
                "为什么开了多线程程序也没有变快",
                "CPython 有 GIL，同一时刻只有一个线程执行字节码，CPU 密集的任务用多线程不会加速。改用 multiprocessing 或 ProcessPoolExecutor；"
                "IO 密集的任务才适合线程。",
            ),
        ],
    ),
    "zh-frontend": (
        "webapp",
        [
            (
                "Vue 页面白屏，控制台报错 Cannot read properties of undefined",
                "数据还没从接口返回时模板就访问了它的属性。用可选链 user?.name，或者在外层加 v-if 等数据加载完再渲染。",
            ),
            (
                "表格很长，怎么让表头在滚动时固定在上面",
                "给 th 设置 position: sticky; top: 0; 并加背景色；外层容器要设置固定高度和 overflow: auto。",
            ),
        ],
    ),
    "zh-login-security": (
        "webapp",
        [
            (
                "登录接口被人暴力破解，怎么做限流",
                "按 IP 和账号两个维度限流，比如每分钟最多五次，超过返回 429；同一账号连续失败十次后要求输入验证码或临时锁定。",
            ),
            (
                "JWT 过期后怎么做无感刷新",
                "access token 设置短有效期，refresh token 放在 httpOnly cookie 里；前端拦截器收到 401 时用 refresh token 换一个新的 access token，再重试原请求。",
            ),
        ],
    ),
    "zh-git": (
        "tools",
        [
            (
                "不小心把数据库密码提交到 git 仓库并推送了，怎么办",
                "先立刻修改密码，这是最重要的。然后用 git filter-repo 或 BFG 从历史里删除，强制推送，并通知其他人重新克隆。",
            ),
            ("怎么撤销最后一次提交，但保留改动", "git reset --soft HEAD~1，提交会撤销，改动保留在暂存区。"),
        ],
    ),
    "zh-k8s": (
        "infra",
        [
            (
                "Pod 一直重启，状态是 CrashLoopBackOff",
                "先用 kubectl logs --previous 看上一次崩溃的日志，再用 kubectl describe pod 看事件；常见原因是启动命令写错、配置缺失或者健康检查太严格。",
            ),
            (
                "集群里的服务之间怎么互相访问",
                "通过 Service 名称走集群 DNS，比如 http://orders.default.svc.cluster.local:8080；同一个命名空间里直接写 orders 就可以。",
            ),
        ],
    ),
    "zh-cache": (
        "webapp",
        [
            (
                "缓存和数据库的数据不一致怎么处理",
                "先更新数据库再删除缓存，删除失败时放进消息队列重试；可以用延迟双删；所有缓存都设置过期时间作为兜底。",
            ),
            (
                "缓存雪崩是什么，怎么防止",
                "大量 key 在同一时间过期，请求全部打到数据库。给过期时间加随机值，热点数据用互斥锁重建，再配合多级缓存和限流降级。",
            ),
        ],
    ),
    "zh-embedding": (
        "ragdocs",
        [
            (
                "中文文档用什么嵌入模型比较好",
                "multilingual-e5 或 bge-m3 对中文效果都不错；all-MiniLM-L6-v2 基本只懂英文，中文句子的向量区分度很差。",
            ),
            (
                "向量检索的召回率怎么评估",
                "人工标注一批真实查询和对应的相关文档，计算 Recall@k 和 MRR；每次调整参数都用同一套标注数据对比。",
            ),
        ],
    ),
    "zh-logging": (
        "tools",
        [
            (
                "日志文件把服务器磁盘写满了",
                "配置日志轮转：Python 用 RotatingFileHandler 或 TimedRotatingFileHandler，按大小或按天切分，保留七份；也可以交给 logrotate。",
            ),
        ],
    ),
    "zh-async": (
        "tools",
        [
            (
                "asyncio 怎么限制同时发出的请求数量",
                "用 asyncio.Semaphore，比如 sem = asyncio.Semaphore(10)，每个请求在 async with sem 里执行，再用 asyncio.gather 一起等待。",
            ),
        ],
    ),
    "zh-mixed-ci": (
        "infra",
        [
            (
                "GitHub Actions 每次都重新安装依赖，太慢了",
                "在 setup-python 里加 cache: 'pip'，或者用 actions/cache 按 requirements.txt 的哈希缓存虚拟环境。",
            ),
            (
                "部署脚本里怎么判断迁移有没有写 downgrade",
                "写一个检查脚本，遍历 migrations/versions 下的每个文件，如果 downgrade 函数体只有 pass 就让 CI 失败。",
            ),
        ],
    ),
}

CORPUS_DAY = datetime(2026, 10, 1, 12)


def turn_keys() -> list[str]:
    return [f"{sid}:{i}" for sid, (_, turns) in SESSIONS.items() for i in range(len(turns))]


def write_corpus(root: Path) -> Path:
    """Write every session as a Cursor agent transcript under root; returns root."""
    for n, (sid, (project, turns)) in enumerate(SESSIONS.items()):
        folder = root / f"Users-dev-code-{project}" / "agent-transcripts"
        folder.mkdir(parents=True, exist_ok=True)
        text = "\n\n".join(f"user:\n{u}\n\nassistant:\n{a}" for u, a in turns) + "\n"
        path = folder / f"{sid}.txt"
        path.write_text(text, encoding="utf-8")
        stamp = CORPUS_DAY.timestamp() - n * 86400
        os.utime(path, (stamp, stamp))
    return root
