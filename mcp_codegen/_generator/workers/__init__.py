"""Worker processes: started early by the parent, fed sources, their results read back.

Runs in: parent. (The default for every module of this package.)
"""
