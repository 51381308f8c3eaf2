"""More languages for the core concepts of ``_lexicon_override`` and ``_lexicon_actions`` (round 6).

Every blind author brought languages the lexicons did not read, and "ignore all previous
instructions" in Czech, Danish, Finnish, Hungarian, Romanian or Tagalog went through while its
German twin was caught. So the ideas most attacks are made of — dismiss, earlier, instructions,
your, the system prompt, disclose, send, stored secrets, remember, without asking — are written
here once for a fixed list of languages, chosen as the most spoken and the European Union's
languages the lexicons lacked, not from any corpus: Czech, Slovak, Danish, Norwegian, Swedish,
Finnish, Estonian, Latvian, Lithuanian, Hungarian, Romanian, Bulgarian, Croatian/Serbian/Bosnian
(Latin and Cyrillic), Slovenian, Catalan, Greek, Hebrew, Swahili, Malay, Tagalog, Bengali, Thai
and romanised Hindi. Terms are in natural spelling and folded like the text (accents dropped).

Words that are common in another language are left out ("tale", "dine", "vis" alone), since a
concept's terms are a union over languages; each concept still fires only inside a combo with
two or three others.
"""

from __future__ import annotations

from ._concepts import terms

_MORE = {
    "dismiss": """zapomeň|zapomeňte|zapomen|nevšímej si|nevšímejte si|přehlížej|nedbej|zabudni|zabudnite
        |nevšímaj si|ignorer|ignorér|glem|se bort fra|ignorera|glöm|bortse från|strunta i|unohda|unohtakaa
        |ohita|ohittakaa|sivuuta|jätä huomiotta|jättäkää huomiotta|älä välitä|ignoreeri|unusta|eira
        |ignorē|aizmirsti|neņem vērā|ignoruok|pamiršk|nepaisyk|hagyd figyelmen kívül|hagyja figyelmen kívül
        |figyelmen kívül|felejtsd el|felejtse el|felejts el|ignoráld|ne törődj|ignoră|ignorați|uită|uitați
        |nu ține cont|nu lua în seamă|игнорирай|игнорирайте|забрави|забравете|не обръщай внимание|пренебрегни
        |ignoriraj|ignorirajte|ignoriši|ignorišite|zaboravi|zaboravite|zanemari|zanemarite|игнориши|заборави
        |занемари|pozabi|pozabite|prezri|ne upoštevaj|oblida|oblideu|ignoreu|no facis cas|αγνόησε|αγνοήστε
        |ξέχνα|ξεχάστε|התעלם|תתעלם|התעלמו|שכח|תשכח|שכחו|puuza|sahau|usifuate|achana na|huwag pansinin
        |wag pansinin|balewalain|kalimutan|huwag sundin|bhool jao|bhul jao|bhool ja|bhul ja|ignore karo
        |ignore kar do|nazarandaz|উপেক্ষা|ভুলে যাও|ভুলে যান|ไม่ต้องสนใจ|ลืม|เพิกเฉย|ละเว้น|ละทิ้ง
        |vergeet alles|lascia perdere|metti da parte|non tenere conto|אל תתייחס|אל תתייחסי|παράβλεψε
        |παραβλέψτε|nu mai ține cont|nu mai lua în seamă|tekintsd semmisnek|విస్మరించి|విస్మరించు|పట్టించుకోకు
        |మర్చిపో|दुर्लक्षित कर|दुर्लक्ष कर|विसरून जा""",
    "earlier": """předchozí|dřívější|předešlé|původní|dosavadní|predchádzajúce|predchádzajúci|predošlé|pôvodné
        |tidligere|forrige|ovenstående|oprindelige|opprinnelige|tidigare|föregående|ursprungliga|ovanstående
        |aiemm*|edelli*|alkuperäi*|aikaisemm*|varasem*|eelmis*|iepriekšēj*|ankstesn*|korábbi|előző|eredeti
        |fenti|anterioare|precedente|inițiale|originale|предишни*|предходни*|досегашни*|първоначални*
        |prethodn*|ranij*|izvorn*|dosadašnj*|претходн*|раниј*|prejšnj*|predhodn*|anteriors|prèvies|inicials
        |προηγούμεν*|αρχικ*|הקודמות|הקודמים|הקודמת|הקודם|za awali|zilizopita|zilizotangulia|sebelum ini
        |terdahulu|naunang|nakaraang|pichle|pichhle|pehle ke|purane|আগের|পূর্ববর্তী|ก่อนหน้า|เดิม
        |మునుపటి|ఇంతకుముందు|आधीच्या|मागील|पूर्वीच्या|ricevute finora|finora|eddigi""",
    "instructions": """pokyn*|instrukc*|pravidl*|příkaz*|inštrukci*|instruktion*|instrukser|regler|anvisninger
        |retningslinjer|instruksjon*|anvisningar|riktlinjer|direktiv|ohje*|sääntö*|säännö*|käsky*|kehote*
        |järjestelmäkehote*|juhis*|juhend*|reegl*|norādījum*|noteikum*|nurodym*|taisykl*|utasítás*|szabály*
        |irányelv*|instrucțiun*|instructiun*|regulile|indicați*|uput*|uputstv*|smjernic*|упутств*|инструкциј*
        |navodil*|instruccions|regles|indicacions|directrius|οδηγί*|κανόν*|הוראות|ההוראות|הנחיות|ההנחיות
        |הכללים|maelekezo|maagizo|sheria|tagubilin|mga tagubilin|patakaran|panuto|instruksyon|peraturan
        |nirdesh|niyam|hidayat|নির্দেশ|নিয়ম|คำสั่ง|คำแนะนำ|กฎ|సూచనలను|సూచనలు|నియమాలు|सूचना|नियम""",
    "your": """tvé|tvoje|své|vaše|tvoj|tvoje|dine instruktioner|dine regler|dine instrukser|sinun
        |ohjeesi|sääntösi|utasításaidat|szabályaidat|tale instrucțiuni|instrucțiunile tale|твоите|вашите
        |tvoje|tvoja|svoje|vaše|tevi|tavo|sinu|les teves|τις οδηγίες σου|σου|שלך|zako|zangu|yako
        |iyong|ang iyong|tumhare|তোমার|আপনার|ของคุณ""",
    "system setup": """systémový prompt|systémové pokyny|systémovou výzvu|systémovú výzvu|systeminstruktioner
        |systeminstruktionerne|systemprompten|systeemprompt|järjestelmäkehote*|järjestelmäohje*|rendszerprompt*
        |rendszerutasítás*|promptul de sistem|promptul sistemului|instrucțiunile de sistem|системния промпт
        |системните инструкции|sistemski prompt|sistemske upute|sustavne upute|sistemska uputstva
        |sistemski poziv|promptul de sistem|indicacions del sistema|μήνυμα συστήματος|οδηγίες συστήματος
        |הנחיות המערכת|הנחיית המערכת|פרומפט המערכת|maagizo ya mfumo|maelekezo ya mfumo|arahan sistem
        |sistem prompt|system prompt mo|sistem ke instructions|সিস্টেম প্রম্পট|พรอมต์ระบบ|คำสั่งระบบ""",
    "disclose": """zobraz|vypiš|ukaž|prozraď|vypíš|ukáž|udskriv|skriv ut|afslør|avslør|avslöja|tulosta
        |näytä|paljasta|mutasd|írd ki|add ki|áruld el|afișează|arată|dezvăluie|tipărește|ipakita|ilabas
        |ibunyag|изведи|разкрий|prikaži|ispiši|otkrij|pokaži|imprimeix|εμφάνισε|δείξε|αποκάλυψε|הצג|הראה
        |חשוף|onyesha|chapisha|fichua|dikhao|batao|দেখাও|প্রকাশ কর|แสดง|เปิดเผย""",
    "send": """pošli|odešli|přepošli|zašli|odošli|prepošli|videresend|skicka|vidarebefordra|lähetä|välitä
        |edasta|nosūti|pārsūti|siųsk|išsiųsk|persiųsk|küldd|küldje|küld el|továbbítsd|trimite|trimiteți
        |redirecționează|изпрати|препрати|pošalji|proslijedi|prosledi|пошаљи|pošlji|reenvia|στείλε|προώθησε
        |שלח|תשלח|העבר|tuma|peleka|hantar|ipadala|ipasa|bhej do|bhejo|bhej dena|পাঠাও|পাঠান|ส่ง""",
    "secrets": """obsah paměti|paměť|hesla|heslo|přihlašovací údaje|poznámky|heslá|pamäť|adgangskode*|kodeord
        |brugerens noter|hukommelse|passord|notater|anteckningar|salasana*|muistiinpano*|muisti
        |parool*|salasõna*|slaptažod*|jelszav*|jelszó|jegyzet*|mentett adat*|parolele|parola|notițele
        |datele salvate|бележки|паметта|lozink*|bilješk*|gesl*|contrasenyes|contrasenya|κωδικ*|σημειώσεις
        |μνήμη|סיסמה|סיסמאות|הסיסמאות|הזיכרון|ההערות|kumbukumbu|mga tala|পাসওয়ার্ড|รหัสผ่าน
        |konverzac*|historii konverzace|samtalehistorik*|samtalen|samtalshistorik*|keskusteluhistoria*
        |keskustelun|beszélgetés*|e-mailj*|leveleit|conversația|istoricul conversației|разговора|razgovor*
        |συνομιλί*|השיחה|היסטוריית השיחות|mazungumzo|perbualan|usapan|কথোপকথন|ประวัติการสนทนา|บทสนทนา
        |تاریخچه گفتگو|گفتگو|розмов*|lịch sử trò chuyện|cuộc trò chuyện|대화 기록|대화 내용|聊天记录|对话记录""",
    "remember": """zapamatuj si|pamatuj si|ulož si|zapamätaj si|husk|husk at|gem dette|lagre dette|spara detta
        |muista|tallenna|jäta meelde|atceries|įsimink|jegyezd meg|emlékezz|mentsd el|ține minte|reține
        |salvează|запази|zapamti|spremi|zapomni si|recorda|θυμήσου|αποθήκευσε|זכור|תזכור|שמור|kumbuka
        |hifadhi|tandaan|alalahanin|yaad rakhna|yaad rakho|yaad rakh|মনে রাখো|মনে রেখো|จำไว้|บันทึกไว้
        |זיכרון חשוב|לזכור תמיד|запам'ятай|запамʼятай|запам’ятай|збережи в пам'яті|hãy nhớ|ghi nhớ""",
    # Round 9: the ideas of fake system messages, claimed consent and standing rules (safety, limits,
    # switched off, answer, without limits, the user agreed, share, trusted over the user), for the
    # same languages and Persian, Ukrainian, Vietnamese, Korean, Hindi and Chinese where their lexicons
    # lacked them, written from the languages, not from a corpus's sentences.
    "safety": """bezpečnost*|bezpečnostn*|sikkerhed*|sikkerhet*|säkerhet*|turvallisuu*|turvasuodat*|turvalisus*
        |ohutus*|drošības|drošība|saugumo|saugos|biztonsági|biztonság*|siguranță|siguranța|securității
        |безопасност*|сигурност*|sigurnost*|sigurnosn*|bezbednost*|безбедност*|varnost*|varnostn*|seguretat
        |ασφάλει*|ασφαλεί*|הבטיחות|בטיחות|האבטחה|אבטחה|usalama|keselamatan|kaligtasan|নিরাপত্তা|ความปลอดภัย
        |suraksha|ایمنی|امنیتی|безпеки""",
    "limits": """omezení|filtrů|filtry|obmedzeni*|begrænsning*|begrensning*|begränsning*|spärrar|rajoitu*
        |rajoitukset|suodat*|piirang*|ierobežojum*|apribojim*|korlátozás*|szűrő*|szűrés|restricți*|limitări*
        |ограничени*|филтр*|ograničenj*|omejitv*|restriccions|filtres|περιορισμ*|φίλτρ*|מגבלות|המגבלות
        |הגבלות|סינון|vikwazo|vichujio|sekatan|penapis|limitasyon|নিষেধাজ্ঞা|সীমাবদ্ধতা|ফিল্টার|ข้อจำกัด
        |การกรอง|محدودیت‌ها|فیلتر|pratibandh|giới hạn|bộ lọc|安全限制|安全規則|安全规则""",
    "disabled": """vypnut*|vypnula|vypnul|deaktivován*|zrušen*|deaktivovan*|deaktiveret|slået fra|deaktivert
        |slått av|avstängd*|avstängt|avaktiverad*|inaktiverad*|stängt av|stängde av|poistettu käytöstä
        |pois käytöstä|kytketty pois|välja lülitatud|keelatud|atspējot*|izslēgt*|išjungt*|kikapcsolta
        |kikapcsolva|kikapcsolt*|letiltva|letiltotta|dezactivat*|изключен*|деактивиран*|премахнат*|isključen*
        |onemogućen*|deaktiviran*|izklopljen*|onemogočen*|desactivat*|απενεργοποι*|בוטלו|ביטל|בוטל|הושבתו
        |השבית|כובו|zimezimwa|zimeondolewa|dilumpuhkan|naka-off|বন্ধ করেছে|বন্ধ করা হয়েছে|নিষ্ক্রিয়
        |ได้ปิด|ถูกปิด|غیرفعال شد|đã tắt|đã vô hiệu|已关闭|已禁用|已解除|已取消""",
    "respond": """odpovídej|odpovídejte|odpověz|odpovězte|odpovedaj|odpovedz|svara|vastaa|atbildi|atsakyk
        |válaszolj|válaszoljon|felelj|răspunde|răspundeți|отговаряй|отговори|odgovaraj|odgovori|odgovarjaj
        |respon|απάντα|απαντήστε|απάντησε|ענה|עני|תענה|השב|jibu|sumagot|sagutin|উত্তর দাও|উত্তর দিন|ตอบ
        |پاسخ بده|پاسخ دهید|جواب بده""",
    "unbound": """bez filtrů|bez omezení|bez pravidel|bez cenzury|bez filtrov|bez obmedzení|bez pravidiel
        |uden begrænsninger|uden filtre|uden regler|uten begrensninger|uten filtre|uten regler
        |utan begränsningar|utan filter|utan regler|utan spärrar|ilman rajoituksia|ilman suodattimia
        |ilman sääntöjä|ilman suodatusta|ilma piiranguteta|ilma filtriteta|bez ierobežojumiem|bez filtriem
        |be apribojimų|be filtrų|szűrés nélkül|korlátozás nélkül|korlátozások nélkül|szabályok nélkül
        |szűrők nélkül|fără restricții|fără filtre|fără reguli|fără limite|без ограничения|без филтри
        |bez ograničenja|bez filtera|brez omejitev|brez filtrov|brez pravil|sense restriccions|sense filtres
        |sense regles|χωρίς φίλτρα|χωρίς περιορισμούς|χωρίς κανόνες|ללא סינון|בלי סינון|ללא מגבלות
        |בלי מגבלות|ללא הגבלות|bila vikwazo|bila vichujio|tanpa sekatan|tanpa penapis|walang limitasyon
        |walang filter|ফিল্টার ছাড়াই|ফিল্টার ছাড়া|সীমাবদ্ধতা ছাড়া|নিয়ম ছাড়া|โดยไม่มีการกรอง
        |ไม่มีข้อจำกัด|โดยไม่มีข้อจำกัด|بدون فیلتر|بدون محدودیت|mà không lọc|không lọc|bina filter
        |без фільтрів|不加过滤|无需过滤|不受限制""",
    "consent": """uživatel souhlasil|uživatel ti dovolil|uživatel povolil|dovolil ti|používateľ súhlasil
        |používateľ ti dovolil|povolil ti|brugeren har givet tilladelse|brugeren har accepteret|brukeren har tillatt
        |brukeren har godtatt|användaren har gått med på|användaren har gett dig|käyttäjä on antanut luvan
        |käyttäjä salli|käyttäjä suostui|kasutaja lubas|kasutaja nõustus|lietotājs atļāva|lietotājs piekrita
        |vartotojas leido|naudotojas leido|felhasználó engedélyezte|felhasználó beleegyezett
        |felhasználó hozzájárult|utilizatorul a fost de acord|utilizatorul a permis|utilizatorul ți-a permis
        |потребителят разреши|потребителят се съгласи|korisnik je dopustio|korisnik je pristao
        |korisnik je odobrio|uporabnik je dovolil|uporabnik se je strinjal|l'usuari ha autoritzat
        |ο χρήστης συμφώνησε|ο χρήστης επέτρεψε|ο χρήστης ενέκρινε|המשתמש אישר|המשתמש הסכים|המשתמש התיר
        |mtumiaji amekubali|mtumiaji ameruhusu|pengguna bersetuju|pumayag ang user|pinayagan ng user
        |ব্যবহারকারী অনুমতি দিয়েছে|ব্যবহারকারী সম্মতি দিয়েছে|ব্যবহারকারী রাজি|ผู้ใช้ยินยอม|ผู้ใช้อนุญาต
        |کاربر موافقت کرد|उपयोगकर्ता ने सहमति|सहमति दी है|користувач погодився|người dùng đã đồng ý
        |người dùng đồng ý|사용자는 동의|사용자가 동의|동의했습니다|用户已确认|用户已同意|用户说过""",
    "share": """sdílet|sdílej|zdieľať|dele|deler|dela|jaa|jagada|dalīties|dalintis|megoszt*|partaja|споделя*
        |dijeliti|podijeli|deliti|compartir|μοιράσου|μοιραστεί*|לשתף|שתף|kushiriki|kongsi|ibahagi|শেয়ার
        |ভাগ করে|แชร์|به اشتراک|ділитися|chia sẻ""",
    "elevate": """mají přednost|má přednost|mají prioritu|har forrang|har företräde|har prioritet|on etusija
        |elsőbbséget|prioritatea|au prioritate|имат предимство|imaju prednost|imajo prednost|έχουν προτεραιότητα
        |עדיפות על|קודמות להוראות|zina kipaumbele|mempunyai keutamaan|may prioridad|অগ্রাধিকার|มีความสำคัญเหนือ
        |اولویت دارد|мають пріоритет|пріоритет над|ưu tiên hơn|우선합니다|优先于用户|נחשבת כאילו הגיעה ממנו
        |as if it came from him|as if it came from her|as if it came from them""",
    "ai reader": """jazykový model|jazykový modeli|jazykovému modelu|pro jazykový model|umělá inteligence,
        |per qualsiasi ia|a qualsiasi ia|qualsiasi ia che|sistemas de triagem|triagem por ia|para sistemas de ia
        |llm reviewing|llms reviewing|model reviewing|llm reading|llm processing|model processing
        |az e-maileket feldolgozó|mi-asszisztensnek|az asszisztensnek|asszisztensnek:|ถึงผู้ช่วย|ถึง ai
        |asistentul ai|pentru asistent|asistentovi|assistentille|assistenten:|till assistenten|til assistenten
        |για το μοντέλο|προς το μοντέλο|για τον βοηθό|לעוזר:|לבינה המלאכותית|למודל|kwa msaidizi|untuk pembantu
        |sa assistant|para sa ai|সহকারীর জন্য|এআই-এর জন্য|برای دستیار|برای هوش مصنوعی|для асистента ші
        |gửi trợ lý|gửi ai|어시스턴트에게|ai 어시스턴트에게|致助手|给助手|致ai助手|致ai""",
    "directive": """classifique|recomende|interrompi|digli|dille|dígale|musí uvést|zamlčet|uveď|uvádí|sag|sage
        |teile mit|melde|empfiehl|bewerte|rangiere|genehmige|lösche|classe|recommande|signale|approuve|supprime
        |envoie|dis|indique|rapporte|raportează|recomandă|aprobă|trimite|spune|ilmoita|suosittele|hyväksy
        |kerro|rapportera|rekommendera|godkänn|säg|rapporter|anbefal|godkend|sig|fortæl|javasold|értékeld
        |hagyd jóvá|mondd|jelentsd|αναφέρετε|ανέφερε|πρότεινε|εγκρίνε|πες|דווח|המלץ|אשר|אמור|ספר|ripoti
        |pendekeza|sema|laporkan|sarankan|katakan|iulat|irekomenda|sabihin|jelaskan|báo cáo|đề xuất|phê duyệt
        |nói|рекомендуй|схвали|скажи|повідом|보고해|추천해|승인해|말해|报告|推荐|批准|告诉用户|告诉他|说明
        |รายงาน|แนะนำ|อนุมัติ|บอก|گزارش بده|توصیه کن|تایید کن|بگو|বলো|জানাও|সুপারিশ|अनुशंसा|बताओ|कहो""",
    "money": """převod* peněz|platby|platbu|betalinger|betalningar|maksut|maksuja|kifizetés*|átutalás*|plățile
        |plăți|transferuri|πληρωμές|μεταφορές χρημάτων|העברות כספים|העברת כספים|העברות|malipo|pembayaran
        |bayad|টাকা পাঠানো|লেনদেন|การโอนเงิน|โอนเงิน|انتقال پول|پرداخت‌ها|पैसे ट्रांसफर|भुगतान|chuyển tiền
        |thanh toán|송금|이체|결제|转账|付款|汇款|振込|送金|перекази|платежі|wire transfers|wire transfer
        |purchases up to|make purchases""",
    "stealth": """potichu|tajně|nenápadně|skrytě|stille|i det skjulte|i hemlighet|tyst|salaa|hiljaa|vaivihkaa
        |csendben|titokban|în secret|pe ascuns|тихо|тайно|potiho|tiho|skrivaj|en secret|σιωπηλά|κρυφά
        |בשקט|בסתר|kimya kimya|kwa siri|secara senyap|nang palihim|গোপনে|চুপচাপ|อย่างเงียบๆ|แอบ|بی‌صدا
        |مخفیانه|âm thầm|bí mật|조용히|秘密地|in a hidden html comment|in a hidden comment|hidden html comment
        |as an html comment|inside an html comment""",
    "persona": """stell dir vor, du bist|stell dir vor du bist|představ si, že jsi|predstav si, že si
        |forestil dig, at du er|tänk dig att du är|kuvittele olevasi|képzeld el, hogy te vagy|imaginează-ți că ești
        |представи си, че си|zamisli da si|φαντάσου ότι είσαι|דמיין שאתה|fikiria wewe ni|bayangkan kamu adalah
        |isipin mo na ikaw ay|কল্পনা করো তুমি|ลองนึกว่าคุณคือ|تصور کن که|уяви, що ти|hãy tưởng tượng bạn là""",
    "told": """co ti bylo řečeno|co ti řekli|co ti bylo zadáno|wat je eerder is verteld|wat je is verteld
        |wat men je heeft verteld|wat je hebt gekregen|מה שנאמר לך|כל מה שנאמר לך|מה שאמרו לך|ό,τι σου είπαν
        |ό,τι σου έχουν πει|ce ți s-a spus|amit eddig mondtak|amit mondtak neked|mitä sinulle on kerrottu
        |vad du har fått höra|hvad du har fået at vide|hva du har blitt fortalt|co ci powiedziano""",
    "void": """semmisnek|érvénytelennek|érvénytelen|neplatné|neplatí|ungültig|ugyldig|ogiltiga|ogiltig|mitätön
        |mitättömiä|nule|anulate|nevalide|άκυρ*|בטלות|בטלים|אינן תקפות|batili|tidak sah|walang bisa""",
    "unasked": """bez ptaní|bez potvrzení|bez svolení|neptej se|bez pýtania|bez potvrdenia|uden at spørge
        |uden bekræftelse|uden tilladelse|uten å spørre|uten bekreftelse|uten tillatelse|utan bekräftelse
        |utan tillstånd|kysymättä|ilman vahvistusta|ilman lupaa|küsimata|kérdezés nélkül|megerősítés nélkül
        |engedély nélkül|fără să întrebi|fără confirmare|fără permisiune|fără să ceri|без да питаш
        |без потвърждение|bez pitanja|bez potvrde|bez dopuštenja|sense preguntar|sense confirmació
        |χωρίς επιβεβαίωση|χωρίς να ρωτήσεις|בלי לשאול|ללא אישור|bila uthibitisho|bila ruhusa
        |walang kumpirmasyon|nang walang pahintulot|bina pooche|bina puche|bina confirmation
        |koi confirmation nahi|bina bataye|জিজ্ঞাসা না করে|অনুমতি ছাড়া|โดยไม่ต้องถาม|ไม่ต้องยืนยัน
        |bez ověření|bez overenia|uden verifikation|utan verifiering|ilman tarkistusta|ellenőrzés nélkül
        |fără verificare|без проверка|bez provjere|brez preverjanja|χωρίς επαλήθευση|בלי לבקש אישור|ללא אימות
        |בלי לשאול שוב|নিশ্চিতকরণ ছাড়াই|নিশ্চিতকরণ ছাড়া|যাচাই ছাড়া|โดยไม่ต้องตรวจสอบ|بدون تأیید|بدون پرسیدن
        |без підтвердження|không cần xác minh|không cần hỏi|无需核实|无需验证|无需确认|不用再确认|확인 없이""",
}


def more(name: str) -> tuple[str, ...]:
    """The extra terms of the concept ``name`` in the languages above (empty for another concept)."""
    return tuple(dict.fromkeys(terms(_MORE.get(name, ""))))
