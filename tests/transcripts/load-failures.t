# Every error in a plugin section stops start-up (exit 3), like a [server] error: each names
# FILE:LINE of the section (its path line, or its header when path is defaulted), the plugin,
# its path and the fix; then one line counts the sections to fix. Nothing is served.
config: conf/failures.ini
exit 3
stderr ~failures\.ini:5: plugin 'abi_major' \(.*abi_major\.so\): built for plugin ABI 2\.7, this mcph has ABI 1\.7; rebuild
stderr ~failures\.ini:6: plugin 'abi_minor' \(.*\): built for plugin ABI 1\.8, newer than this mcph's ABI 1\.7
stderr ~failures\.ini:7: plugin 'short_descriptor' \(.*\): descriptor is 8 bytes
stderr ~failures\.ini:8: plugin 'bad_schema' \(.*\): input_schema of '.*' is not valid JSON
stderr ~failures\.ini:9: plugin 'schema_not_object' \(.*\): input_schema of '.*' must be a JSON Schema object
stderr ~failures\.ini:10: plugin 'dup_names' \(.*\): two tools are named 'same'
stderr ~failures\.ini:11: plugin 'bad_name' \(.*\): tool name 'bad name!' is not valid
stderr ~failures\.ini:12: plugin 'no_entry' \(.*\): no mcph_plugin_entry\(\)
stderr ~failures\.ini:13: \[plugin\.config_required\] needs 'token'
stderr ~failures\.ini:15: plugin 'missing' \(.*does-not-exist\.so\): cannot open
stderr ~failures\.ini:19: \[plugin\.basic2\] unknown key 'colour'; plugin 'basic' accepts
stderr ~plugin 'collide' \(.*\): tool 'echo' is already served by plugin 'basic'; left out\. Set a prefix in \[plugin\.collide\]
stderr ~failures\.ini:20: \[plugin\.collide\] serves a name another plugin serves
stderr ~failures\.ini:21: plugin 'schema_keywords' \(.*\): input_schema of 'needs_text': "required" at # must be an array of unique strings; it is a string; fix the schema
stderr ~failures\.ini:21: plugin 'schema_keywords' \(.*\): output_schema of 'counts': "minimum" at #/properties/n must be a number; it is a string
stderr ~critical: 13 plugin section\(s\) of .*failures\.ini to fix \(above\); not serving
stderr !~does-not-exist-either
stderr !~serving \d+ tools
