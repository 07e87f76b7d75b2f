# The files the documentation shows, each with the test that compiles, runs or loads it.
# Included by docs/CMakeLists.txt, which defines the hf_doc_* functions.
hf_doc_program(NAME first-read SOURCE snippets/first-program/first_read.c
  ARGS ${PROJECT_SOURCE_DIR}/README.md)
hf_doc_transcript(NAME first-program
  COVERS snippets/first-program/first_read.c snippets/first-program/CMakeLists.txt)
# The transcript installs the tree into a prefix of its own, which is how a user without root
# installs. A build configured for the prefix /usr installs hipfile.conf into /etc whatever the
# prefix (HF_INSTALL_CONFDIR), which a test must not write; there the transcript does not run.
if(IS_ABSOLUTE "${HF_INSTALL_CONFDIR}")
  set_tests_properties(docs.transcript.first-program PROPERTIES DISABLED TRUE)
endif()
hf_doc_transcript(NAME run-from-build-tree)
hf_doc_transcript(NAME write-a-plugin
  COVERS snippets/plugin/mybackend.c snippets/plugin/mybackend.xml snippets/plugin/mybackend.conf
         snippets/plugin/plugin.map)
hf_doc_config(FILE snippets/plugin/mybackend.conf)
hf_doc_config(FILE snippets/fallback.conf)
hf_doc_transcript(NAME hipfile-check)
hf_doc_transcript(NAME copy-a-file)
hf_doc_program(NAME errors SOURCE snippets/errors.c)
hf_doc_program(NAME userspace-fs SOURCE snippets/userspace-fs.c)
hf_doc_config(FILE snippets/only-fallback.conf)
hf_doc_config(FILE snippets/compat-force.conf)
hf_doc_transcript(NAME tune-selection
  COVERS snippets/only-fallback.conf snippets/compat-force.conf)
hf_doc_transcript(NAME hipfile-bench)
hf_doc_config(FILE snippets/tune-many-callers.conf)
hf_doc_config(FILE snippets/tune-few-cores.conf)
hf_doc_transcript(NAME tune-performance COVERS snippets/tune-many-callers.conf)
hf_doc_transcript(NAME hipfile-cp)
