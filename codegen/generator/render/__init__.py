"""Stage 4 (parent): generated modules rendered in memory."""
