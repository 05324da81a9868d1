"""One module per subcommand. Each defines ``register(subparsers)``, which adds
its parser and sets ``func`` to a function ``args -> exit code``."""
