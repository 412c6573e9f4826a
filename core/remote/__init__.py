"""Other machines' transcripts, pulled over the system's ssh (sftp.py) into a
local mirror (pull.py) that the index run indexes and the archive keeps."""
