"""The command-line face: argparse commands over the core calls."""
