# strict = yes: a plugin that fails at startup is fatal (exit 4).
config: conf/strict.ini
exit 4
stderr ~strict
