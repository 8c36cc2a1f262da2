"""Question templates of the loaders (text files loaded by name)."""
