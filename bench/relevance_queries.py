"""The benchmark's queries and their relevant turns, judged from the corpus text
before any search ran (committed before the first run).

Kinds: keyword (words or identifiers that appear in the turn), paraphrase (the
same need in other words), vague (half-remembered, short), chinese (Chinese
query, Chinese turns), cross (a query in one language whose answer exists only
in the other). A query's relevant turns are "<session>:<turn>"; the first is
the best answer, any of them counts as a hit.
"""

from __future__ import annotations

KINDS = ("keyword", "paraphrase", "vague", "chinese", "cross")

# (kind, query, relevant turn keys)
QUERIES: list[tuple[str, str, list[str]]] = [
    # -- keyword ---------------------------------------------------------------
    ("keyword", "alembic downgrade", ["pg-migration:0", "pg-migration:2"]),
    ("keyword", "transaction_per_migration", ["pg-migration:1"]),
    ("keyword", "thundering herd", ["redis-cache:1"]),
    ("keyword", "ACL SETUSER", ["redis-cache:2"]),
    ("keyword", "kid mismatch", ["jwt-auth:0"]),
    ("keyword", "OOMKilled 137", ["k8s-oom:0"]),
    ("keyword", "startupProbe", ["k8s-oom:1"]),
    ("keyword", "client_max_body_size", ["nginx-proxy:0"]),
    ("keyword", "QDRANT__STORAGE__SNAPSHOTS_PATH", ["qdrant-collection:2"]),
    ("keyword", "is_tenant payload index", ["qdrant-collection:1", "zh-vector-db:1"]),
    ("keyword", "react-window", ["react-rerender:0"]),
    ("keyword", "scroll-margin-top", ["css-layout:1"]),
    ("keyword", "git filter-repo", ["git-mistakes:0", "zh-git:0"]),
    ("keyword", "busy_timeout WAL", ["sqlite-locked:0"]),
    ("keyword", "catchup=False", ["airflow-dag:0"]),
    # -- paraphrase ------------------------------------------------------------
    ("paraphrase", "make my unit checks finish quicker", ["flaky-tests:1"]),
    ("paraphrase", "a test that passes on my laptop but sometimes breaks in the pipeline", ["flaky-tests:0"]),
    ("paraphrase", "undo a schema change that broke halfway through", ["pg-migration:0", "zh-db-rollback:0"]),
    ("paraphrase", "container image is huge, make it smaller", ["docker-build:0", "zh-docker:0"]),
    ("paraphrase", "change the cache server's secret without taking the site down", ["redis-cache:2"]),
    ("paraphrase", "the service dies because it runs out of RAM", ["k8s-oom:0"]),
    ("paraphrase", "people are brute forcing our sign-in form", ["jwt-auth:2", "zh-login-security:0"]),
    ("paraphrase", "fetch many web pages in parallel but not all at once", ["python-async:0", "zh-async:0"]),
    ("paraphrase", "loading a giant spreadsheet export into a dataframe runs out of memory", ["pandas-memory:0"]),
    ("paraphrase", "disk full because of application output files", ["logging-setup:1", "zh-logging:0"]),
    ("paraphrase", "put an element exactly in the middle of the page", ["css-layout:0"]),
    ("paraphrase", "I leaked a secret token in the repository history", ["git-mistakes:0", "zh-git:0"]),
    ("paraphrase", "merge keyword and vector search results into one ranking", ["hybrid-search:0", "hybrid-search:1"]),
    ("paraphrase", "the language model makes things up that are not in the documents", ["rag-eval:1"]),
    # -- vague -----------------------------------------------------------------
    ("vague", "that stampede problem when the cache expires", ["redis-cache:1", "zh-cache:1"]),
    ("vague", "the borrow checker thing", ["rust-borrow:0"]),
    ("vague", "something about backups of the vector db", ["qdrant-collection:2"]),
    ("vague", "effect firing twice", ["react-rerender:1"]),
    ("vague", "upload too big error", ["nginx-proxy:0"]),
    ("vague", "wrong day in the reports", ["tz-reports:0"]),
    ("vague", "where to keep the token on the frontend", ["jwt-auth:1", "zh-login-security:1"]),
    ("vague", "slow typing in a big list", ["react-rerender:0"]),
    ("vague", "the lock file conflict", ["git-mistakes:2"]),
    ("vague", "how good is my search", ["rag-eval:0", "zh-embedding:1"]),
    ("vague", "websocket keeps dropping", ["nginx-proxy:1"]),
    ("vague", "那猫呢？", ["zh-pets:1", "zh-pets:2"]),
    # -- chinese ---------------------------------------------------------------
    ("chinese", "RAG 分块", ["zh-rag-chunking:0", "zh-rag-chunking:1"]),
    ("chinese", "数据库回滚", ["zh-db-rollback:0"]),
    ("chinese", "猫应该喂什么", ["zh-pets:1", "zh-pets:2"]),
    ("chinese", "向量数据库怎么选", ["zh-vector-db:0"]),
    ("chinese", "镜像体积太大", ["zh-docker:0"]),
    ("chinese", "日志时间差八小时", ["zh-docker:1"]),
    ("chinese", "多线程不加速的原因", ["zh-python-perf:1"]),
    ("chinese", "页面一片空白报错", ["zh-frontend:0"]),
    ("chinese", "防止有人不停尝试密码登录", ["zh-login-security:0"]),
    ("chinese", "令牌过期自动续期", ["zh-login-security:1"]),
    ("chinese", "容器反复崩溃重启", ["zh-k8s:0", "k8s-oom:0"]),
    ("chinese", "缓存过期导致数据库压力太大", ["zh-cache:1", "redis-cache:1"]),
    ("chinese", "中文用什么向量模型", ["zh-embedding:0"]),
    ("chinese", "加索引锁表", ["zh-db-rollback:1"]),
    # -- cross-language --------------------------------------------------------
    ("cross", "the container clock is eight hours off", ["zh-docker:1"]),
    ("cross", "how do services find each other inside the cluster", ["zh-k8s:1"]),
    ("cross", "keep the cache consistent with the database after an update", ["zh-cache:0"]),
    ("cross", "why don't threads make my python code faster", ["zh-python-perf:1"]),
    ("cross", "what should I feed my cat", ["zh-pets:1", "zh-pets:2"]),
    ("cross", "Vue page is blank on load", ["zh-frontend:0"]),
    ("cross", "上传文件太大被 nginx 拒绝", ["nginx-proxy:0"]),
    ("cross", "Airflow 部署后补跑了很多历史任务", ["airflow-dag:0"]),
    ("cross", "sqlite 数据库被锁住", ["sqlite-locked:0"]),
    ("cross", "Rust 借用检查报错", ["rust-borrow:0"]),
    ("cross", "读取很大的 CSV 文件内存不够", ["pandas-memory:0"]),
    ("cross", "报表按时区算错了日期", ["tz-reports:0"]),
]
