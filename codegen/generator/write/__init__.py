"""Stage 5 (parent): compare rendered files with the output directory and replace it at once."""
