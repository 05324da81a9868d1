"""Certificates written by hand by someone who read the checker (issue 26): each must be
refused, with exit 1 or 2, within a second of CPU, under a 4 GB address-space limit.

See README.md beside this file for how a case is laid out."""
