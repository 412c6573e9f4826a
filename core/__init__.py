"""convo-tui's engine: transcripts in, sessions, turns and search hits out.

Nothing under core/ imports Textual or Rich; the app and the CLI are faces.
"""

import os as _os

# onnxruntime (under fastembed) otherwise writes a device id and an event
# database into ~/.cache/Microsoft/DeveloperTools and may upload telemetry.
# Its opt-out is read once, when the library loads: so it is set here, before
# any part of the engine can import it. A user's own setting is kept.
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
