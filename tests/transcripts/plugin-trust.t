# A plugin below a folder others may write to (not sticky) is refused at start-up, however
# far up that folder is: whoever can rename a folder above the plugin can put another in its
# place. The message names the plugin, the folder, its mode and owner, and the fix.
setup: mkdir -p open/inner && cp "$ROOT/build/tests/plugins/basic.so" open/inner/ && chmod 0777 open && printf '[server]\nplugin_dir = open/inner\n[plugin.basic]\n' > x.ini
config: $WORK/x.ini
exit 3
stderr ~x\.ini:3: plugin 'basic' \(.*open/inner/basic\.so\): its folder /.*/open \(mode 0777, owner uid \d+\) is writable by group or others, so anyone could swap the plugin; run chmod go-w /.*/open
stderr ~not serving
