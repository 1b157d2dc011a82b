import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks that onlyonce-bom versions every module the build publishes: each module of the root pom
 * (and of its modules) that sets neither maven.deploy.skip nor skipPublishing must be in the BOM's
 * dependencyManagement at the module's own version, and the BOM must name no artifact that no module
 * publishes. Prints what is wrong and exits 1, or prints one line and exits 0.
 *
 * <p>Run by scripts/test.sh before the build: {@code java scripts/CheckBom.java [repository root]}.
 */
public class CheckBom {

    record Module(String dir, String groupId, String artifactId, String version) {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        List<Module> published = new ArrayList<>();
        collect(root, "", published);
        Element bom = read(root.resolve("onlyonce-bom/pom.xml"));
        String bomVersion = text(bom, "version");
        String rootVersion = text(read(root.resolve("pom.xml")), "version");

        List<String> problems = new ArrayList<>();
        if (!bomVersion.equals(rootVersion)) {
            problems.add("onlyonce-bom is at " + bomVersion + ", the root pom at " + rootVersion);
        }
        Map<String, String> managed = new TreeMap<>();
        Element management = child(bom, "dependencyManagement");
        Element dependencies = management == null ? null : child(management, "dependencies");
        for (Element dependency : dependencies == null ? List.<Element>of() : children(dependencies, "dependency")) {
            String version = text(dependency, "version").replace("${project.version}", bomVersion);
            managed.put(text(dependency, "groupId") + ":" + text(dependency, "artifactId"), version);
        }
        for (Module module : published) {
            String coordinates = module.groupId() + ":" + module.artifactId();
            String version = managed.remove(coordinates);
            if (version == null) {
                problems.add(coordinates + " (" + module.dir() + ") is published but missing from onlyonce-bom");
            } else if (!version.equals(module.version())) {
                problems.add(coordinates + " (" + module.dir() + ") is " + module.version() + ", onlyonce-bom says " + version);
            }
        }
        managed.keySet().forEach(coordinates -> problems.add(coordinates + " is in onlyonce-bom, but no module publishes it"));

        if (problems.isEmpty()) {
            System.out.println("[bom] onlyonce-bom " + bomVersion + " versions the " + published.size() + " published modules");
            return;
        }
        problems.forEach(problem -> System.out.println("[bom] " + problem));
        System.exit(1);
    }

    /** The published modules of the pom in {@code dir} (not that pom itself), and of their modules. */
    private static void collect(Path root, String dir, List<Module> published) throws Exception {
        Element project = read(root.resolve(dir).resolve("pom.xml"));
        Element modules = child(project, "modules");
        for (Element module : modules == null ? List.<Element>of() : children(modules, "module")) {
            String path = dir.isEmpty() ? module.getTextContent().trim() : dir + "/" + module.getTextContent().trim();
            Element pom = read(root.resolve(path).resolve("pom.xml"));
            Element parent = child(pom, "parent");
            Element properties = child(pom, "properties");
            boolean skipped = properties != null && ("true".equals(text(properties, "maven.deploy.skip"))
                    || "true".equals(text(properties, "skipPublishing")));
            if (!skipped && !"onlyonce-bom".equals(text(pom, "artifactId"))) {
                published.add(new Module(path, orParent(pom, parent, "groupId"), text(pom, "artifactId"),
                        orParent(pom, parent, "version")));
            }
            collect(root, path, published);
        }
    }

    private static String orParent(Element pom, Element parent, String name) {
        String own = text(pom, name);
        return !own.isEmpty() || parent == null ? own : text(parent, name);
    }

    private static Element read(Path pom) throws Exception {
        if (!Files.isRegularFile(pom)) {
            throw new IllegalStateException("no " + pom);
        }
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    /** The text of the direct child {@code name}, or "" when there is none. */
    private static String text(Element parent, String name) {
        Element element = child(parent, name);
        return element == null ? "" : element.getTextContent().trim();
    }
}
