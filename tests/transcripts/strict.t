# strict = yes: a plugin whose init fails at startup is fatal (exit 4).
config: conf/strict.ini
exit 4
stderr ~1 plugin init failure\(s\) and \[server\] strict = yes
