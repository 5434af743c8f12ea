require_relative "helper"

# The Ruby example runs end to end against thriftd on the blog
# configuration and checks its own output.
class TestExamples < ThriftdTest
  EXAMPLE = File.join(REPO, "clients", "ruby", "examples", "bloggyappy.rb")

  def run_example(node, *flags)
    out, status = Open3.capture2e(RbConfig.ruby, EXAMPLE, "--server", node.addr, *flags)
    assert status.success?, out
    assert_match(/all checks passed\n\z/, out)
    assert_includes out, %(10 latest posts tagged "cassandra":)
    assert_includes out, "3 comments:"
  end

  def test_bloggyappy_unframed
    node = start_node(BLOG_CONF)
    run_example(node)
    run_example(node) # a second run starts from a clean slate again
  end

  def test_bloggyappy_framed
    run_example(start_node(BLOG_CONF), "--framed")
  end

  def test_shipped_blog_configuration_is_the_fixture
    # Users start thriftd on the copy in clients/; it must not drift.
    assert_equal File.binread(BLOG_CONF), File.binread(File.join(REPO, "clients", "storage-conf-bloggyappy.xml"))
  end
end
