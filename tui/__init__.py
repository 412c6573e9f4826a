"""The Textual face of convo-tui: screens and widgets over the core calls."""
