"""Worker processes: started early by the parent, fed sources, their results read back."""
