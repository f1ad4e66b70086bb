"""read stage."""

CONFIG = "_quarto.yml"      # the project's configuration file, at its root
