/*
 * Where the installation the running core belongs to keeps its files, found at run time from the
 * file that holds the core, so a tree installed under any prefix (chosen when configuring or when
 * installing) or moved afterwards finds its own plugins and config file.
 */
#ifndef HF_CORE_INSTALL_PATHS_H
#define HF_CORE_INSTALL_PATHS_H

/**
 * The library directory of this installation, absolute and without symbolic links: the directory
 * of libhipfile.so.0, or, for a program with the core linked in (hipfile-check), the library
 * directory of its installed layout beside its bin directory. NULL when it cannot be found.
 */
const char *hf_install_libdir(void);

/** <libdir>/hipfile/plugins, the default plugins.directory; NULL when the libdir is unknown. */
const char *hf_install_plugin_dir(void);

/**
 * The config file this installation installs: <libdir>/../etc/hipfile.conf in the usual layout
 * (the relation is the configured one), or /etc/hipfile.conf for an installation configured for
 * the prefix /usr. NULL when the libdir is unknown.
 */
const char *hf_install_config_path(void);

#endif
