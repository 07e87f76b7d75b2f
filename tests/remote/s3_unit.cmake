# The S3 protocol pieces of the remote backend on their own, no network: SigV4 against AWS's
# published examples and canonicalisation edge cases, s3:// URLs and request URLs, credential and
# settings lookup order (temporary HOME and environment), the XML bodies, and what a failed
# response maps to.
hf_add_gtest(NAME test_remote_s3
  SOURCES test_s3_sigv4.cc test_s3_url.cc test_s3_credentials.cc test_s3_xml.cc test_s3_status.cc
  LIBS hipfile_remote_s3)
