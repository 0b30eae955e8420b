"""Classic 杀人游戏 (seed 001) and its 2.0 variants (seed 003). See docs/rules/classic.md."""
