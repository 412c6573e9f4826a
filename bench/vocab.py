"""Word lists the synthetic corpus builds its sentences from.

Real developer topics, in English and Chinese, so that benchmark queries have
meaningful answers and the tokenizers see realistic text (not random letters).
Each topic carries its own nouns; sentences mix them with generic phrasing.
"""

from __future__ import annotations

# topic -> (English nouns, Chinese nouns): a session is mostly about one topic.
TOPICS: dict[str, tuple[list[str], list[str]]] = {
    "qdrant": (
        [
            "Qdrant collection",
            "payload index",
            "HNSW graph",
            "sparse vectors",
            "named vectors",
            "prefetch query",
            "RRF fusion",
            "snapshot",
        ],
        ["向量库", "集合配置", "稀疏向量", "混合检索", "索引参数", "快照"],
    ),
    "auth": (
        [
            "auth middleware",
            "JWT refresh token",
            "session cookie",
            "OAuth callback",
            "CSRF check",
            "password hashing",
            "role check",
        ],
        ["认证中间件", "刷新令牌", "会话 Cookie", "权限校验", "登录流程", "密码哈希"],
    ),
    "rag": (
        [
            "RAG pipeline",
            "embedding model",
            "chunking strategy",
            "reranker",
            "context window",
            "retrieval recall",
            "prompt template",
        ],
        ["检索增强生成", "嵌入模型", "分块策略", "重排序", "上下文窗口", "召回率", "提示词模板"],
    ),
    "ci": (
        ["GitHub Actions workflow", "Docker build cache", "test matrix", "release pipeline", "flaky test", "artifact upload"],
        ["持续集成", "构建缓存", "测试矩阵", "发布流水线", "不稳定的测试", "镜像构建"],
    ),
    "db": (
        ["Postgres migration", "connection pool", "slow query", "composite index", "transaction isolation", "ORM model"],
        ["数据库迁移", "连接池", "慢查询", "联合索引", "事务隔离级别", "数据模型"],
    ),
    "frontend": (
        ["React component", "state management", "render loop", "CSS grid layout", "form validation", "bundle size"],
        ["前端组件", "状态管理", "重复渲染", "表单校验", "打包体积", "页面布局"],
    ),
    "tui": (
        ["Textual app", "key bindings", "command palette", "debounced input", "scrollable list", "snapshot test"],
        ["终端界面", "快捷键", "命令面板", "防抖输入", "滚动列表", "快照测试"],
    ),
    "perf": (
        ["memory leak", "profiler output", "p95 latency", "hot loop", "cache eviction", "thread pool"],
        ["内存泄漏", "性能分析", "延迟", "热点循环", "缓存淘汰", "线程池"],
    ),
    "go": (
        ["Go SDK", "goroutine leak", "context cancellation", "cross-platform build", "cgo dependency", "module proxy"],
        ["Go 语言", "协程泄漏", "上下文取消", "跨平台编译", "纯 Go 实现", "依赖管理"],
    ),
    "k8s": (
        ["Kubernetes deployment", "readiness probe", "Helm chart", "autoscaler", "config map", "ingress rule"],
        ["容器编排", "健康检查", "部署配置", "自动扩缩容", "配置映射", "网关规则"],
    ),
}

# No hyphens: a Cursor folder slug cannot tell "billing-api" from "billing/api".
PROJECTS = ["cocursor", "billing", "convotui", "webshop", "mlplatform", "infra", "mobileapp", "docsite"]

EN_VERBS = ["set up", "debug", "refactor", "configure", "test", "migrate", "speed up", "document", "replace", "review"]
EN_QUESTION = [
    "How do we {verb} the {noun}?",
    "Why does the {noun} break when we {verb} the {noun2}?",
    "Can you {verb} the {noun} so that the {noun2} keeps working?",
    "What is the best way to {verb} the {noun} in this project?",
    "Please {verb} the {noun} and explain what changed in the {noun2}.",
]
EN_ANSWER = [
    "The {noun} depends on the {noun2}, so we should {verb} it first.",
    "I looked at the {noun} and the problem is in how the {noun2} is configured.",
    "A simpler option is to {verb} the {noun} behind a small interface.",
    "After this change the {noun} no longer blocks the {noun2}.",
    "We can measure the {noun} before and after we {verb} the {noun2}.",
    "The tests cover the {noun} now, including the edge case with the {noun2}.",
    "I would keep the {noun} as it is and {verb} only the {noun2}.",
    "This matches what the documentation says about the {noun}.",
]
ZH_QUESTION = [
    "{noun}应该怎么设计？",
    "为什么{noun}和{noun2}一起用的时候会出错？",
    "帮我看一下{noun}的实现，顺便检查{noun2}。",
    "我们之前讨论过{noun}，现在要不要换成别的方案？",
]
ZH_ANSWER = [
    "{noun}依赖{noun2}，所以需要先处理它。",
    "我检查了{noun}，问题出在{noun2}的配置上。",
    "建议把{noun}放在一个小接口后面，这样{noun2}更容易测试。",
    "修改之后{noun}不再阻塞{noun2}了。",
    "可以先测量{noun}的性能，再决定是否优化{noun2}。",
]
THINKING = [
    "The user wants the {noun} fixed; I should read the code around the {noun2} first.",
    "Let me check whether the {noun} is already covered by tests.",
    "The error probably comes from the {noun2}; look at the config before editing.",
]

TOOLS = ["Read", "Write", "Grep", "Shell", "StrReplace", "codebase_search"]
FILE_NAMES = ["service.py", "handler.go", "index.ts", "config.yaml", "main.rs", "store.py", "middleware.go", "App.tsx"]
CODE_LINES = [
    "def {name}(self, items):",
    "    result = [item for item in items if item.enabled]",
    "    return sorted(result, key=lambda item: item.score)",
    "func {name}(ctx context.Context) error {{",
    "    if err := store.Flush(ctx); err != nil {{ return err }}",
    "const {name} = async (req, res) => {{ res.json(await load(req.params.id)) }}",
    '    logger.info("{name} finished", extra={{"count": len(rows)}})',
    "    for row in rows:",
    "        total += row.amount * row.quantity",
    "}}",
]
NAMES = ["load_points", "refreshToken", "buildIndex", "handleCallback", "migrate", "renderList", "flushCache", "search"]

# Benchmark queries: (query, topic it should find). English, Chinese, exact words.
QUERIES: list[tuple[str, str]] = [
    ("how did we set up the Qdrant collection", "qdrant"),
    ("sparse vectors and RRF fusion", "qdrant"),
    ("JWT refresh token in the auth middleware", "auth"),
    ("OAuth callback fails", "auth"),
    ("chunking strategy for the RAG pipeline", "rag"),
    ("那次讨论检索增强生成的对话", "rag"),
    ("GitHub Actions Docker build cache", "ci"),
    ("flaky test in the release pipeline", "ci"),
    ("Postgres migration slow query", "db"),
    ("数据库连接池怎么配置", "db"),
    ("React component render loop", "frontend"),
    ("debounced input in the Textual app", "tui"),
    ("快捷键和命令面板", "tui"),
    ("memory leak p95 latency", "perf"),
    ("goroutine leak context cancellation", "go"),
    ("跨平台编译 纯 Go 实现", "go"),
    ("Kubernetes readiness probe Helm chart", "k8s"),
    ("自动扩缩容 部署配置", "k8s"),
    ("which session changed the auth middleware", "auth"),
    ("embedding model context window", "rag"),
]
