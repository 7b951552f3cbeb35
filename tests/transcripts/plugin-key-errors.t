# A plugin's init that refuses its own keys (MCPH_ERR_INVALID) is a configuration error: exit 3.
# What the plugin logs about a key during init carries FILE:LINE of that key.
config: conf/plugin-keys.ini
exit 3
stderr ~plugin exec: .*plugin-keys\.ini:8: line 1 of commands in \[plugin\.exec\], .* quote is not closed
stderr ~plugin-keys\.ini:6: plugin 'exec' \(.*\): init refused the section's keys \(MCPH_ERR_INVALID\)
stderr ~plugin sqlite: .*plugin-keys\.ini:13: \[plugin\.sqlite\] max_rows = 'lots' is not valid
stderr ~critical: 2 plugin section\(s\) of .*plugin-keys\.ini to fix
