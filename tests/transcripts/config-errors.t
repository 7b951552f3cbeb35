# A wrong INI file: every error names file:line and the fix; exit 3.
config: conf/bad.ini
exit 3
stderr ~bad\.ini:2: \[server\] workers = 'lots' is not valid
stderr ~bad\.ini:3: unknown key 'colour' in \[server\]
stderr ~bad\.ini:8: unknown section \[elsewhere\]
